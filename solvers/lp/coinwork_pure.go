//go:build !cgo || nocoin

package lp

// coinWork is the Coin backend's memory in a Work; this build has no Coin
// backend.
type coinWork struct{}
