package naming

import "testing"

func TestSnake(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"simple", "userName", "user_name"},
		{"leading acronym", "HTTPServer", "http_server"},
		{"trailing acronym", "userID", "user_id"},
		{"digits", "base64Encode", "base64_encode"},
		{"already snake", "already_snake", "already_snake"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Snake(tt.in); got != tt.want {
				t.Errorf("Snake(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}
