// Package layers holds no code, only the test that keeps imports pointing
// down (docs/development.md draws the layers): go test ./verify/layers.
package layers
