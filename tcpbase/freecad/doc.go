// Package freecad holds the tests of the FreeCAD base, a real CAD program
// behind the bridge. The base itself is Python (cadbase/, run by FreeCAD);
// its tool list, tools.json, is the simulated base's, checked here.
//
// Without CAD_MCP_FREECAD_ADDR the tests check tools.json and run the
// protocol edge-case table against the simulated base; `make test-freecad`
// sets it (and CAD_MCP_BRIDGE) to run them against FreeCAD as well.
package freecad
