package toolschema

import (
	"strings"
	"testing"
)

func BenchmarkRepairToolSchemasNothingToDo(b *testing.B) {
	tool := `{"name":"draw_line","description":"Draw a line.","inputSchema":{"type":"object","properties":{"start":{"type":"object"}}}}`
	result := []byte(`{"tools":[` + strings.TrimSuffix(strings.Repeat(tool+",", 26), ",") + `]}`)
	b.ReportAllocs()
	b.SetBytes(int64(len(result)))
	for b.Loop() {
		_, _ = RepairToolSchemas(result)
	}
}
