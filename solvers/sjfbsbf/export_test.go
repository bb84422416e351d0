package sjfbsbf

// SetMemoise turns the "no room" memo on or off (tests only).
func SetMemoise(on bool) { memoise = on }
