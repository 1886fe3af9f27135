package tcpbase

import (
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/spf13/pflag"

	"github.com/mcp-bridge/mcp-bridge/configs/loopback"
	"github.com/mcp-bridge/mcp-bridge/configs/setting"
)

// Where the CAD base listens, and how long a connection to it may take to
// open, unless told otherwise.
const (
	DefaultHost           = "127.0.0.1"
	DefaultPort           = 8080
	DefaultConnectTimeout = 3 * time.Second
)

// Config is where the CAD base is: the settings of the bridge and of the
// commands that talk to the base without one (tools, call, request,
// doctor).
type Config struct {
	Host           string
	Port           int
	ConnectTimeout time.Duration
	origin         setting.Origin
}

// AddAddrFlags registers --host and --port on fs.
func AddAddrFlags(fs *pflag.FlagSet) {
	fs.String("host", DefaultHost, "CAD base host (env CAD_MCP_HOST)")
	fs.Int("port", DefaultPort, "CAD base TCP port (env CAD_MCP_PORT)")
}

// AddFlags registers --host, --port and --connect-timeout on fs.
func AddFlags(fs *pflag.FlagSet) {
	AddAddrFlags(fs)
	fs.Duration("connect-timeout", DefaultConnectTimeout, "time to connect to the base (env CAD_MCP_CONNECT_TIMEOUT)")
}

// ConfigFrom reads the flags AddFlags (or AddAddrFlags) registered on fs,
// after fs.Parse: each from the command line, else its CAD_MCP_<NAME>
// variable through getenv, else its default; then checks them.
func ConfigFrom(fs *pflag.FlagSet, getenv func(string) string) (Config, error) {
	if err := setting.Read(fs, getenv, "host", "port", "connect-timeout"); err != nil {
		return Config{}, err
	}
	c := Config{Host: DefaultHost, Port: DefaultPort, ConnectTimeout: DefaultConnectTimeout, origin: setting.OriginOf(fs)}
	c.Host, _ = fs.GetString("host")
	c.Port, _ = fs.GetInt("port")
	if fs.Lookup("connect-timeout") != nil {
		c.ConnectTimeout, _ = fs.GetDuration("connect-timeout")
	}
	return c, c.Validate()
}

// Validate checks the settings; its error names each as the user set it.
func (c Config) Validate() error {
	if c.Port < 1 || c.Port > 65535 {
		return fmt.Errorf("%s %d: must be 1-65535", c.origin.Name("port"), c.Port)
	}
	if c.ConnectTimeout <= 0 {
		return fmt.Errorf("--connect-timeout %s: must be positive", c.ConnectTimeout)
	}
	return nil
}

// OnThisMachine reports whether the base's host is this machine
// (loopback.Host): the base's protocol has no authentication or
// encryption, which a base elsewhere exposes.
func (c Config) OnThisMachine() bool { return loopback.Host(c.Host) }

// Addr is the base's host:port.
func (c Config) Addr() string { return net.JoinHostPort(c.Host, strconv.Itoa(c.Port)) }

// Client is a client of the base, taking answers of up to maxAnswer bytes
// (0: DefaultMaxAnswer).
func (c Config) Client(maxAnswer int) *Client {
	return &Client{Addr: c.Addr(), ConnectTimeout: c.ConnectTimeout, MaxAnswer: maxAnswer}
}
