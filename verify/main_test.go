package verify

import (
	"testing"

	"github.com/mcp-bridge/mcp-bridge/verify/internal/testbin"
)

// bridgeBin is the real bridge, built once for these tests.
var bridgeBin string

func TestMain(m *testing.M) { testbin.Main(m, &bridgeBin) }
