// Package tcpbase talks to the CAD base: one JSON-RPC frame per TCP
// connection, with deadlines, a size cap, and one error kind per way the
// base can fail. The simulated base used by tests and demos is in simbase;
// a real one, FreeCAD, and its tests are in freecad; starting the CAD
// program when its base is down is launch.
package tcpbase
