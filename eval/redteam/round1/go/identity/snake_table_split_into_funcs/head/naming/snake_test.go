package naming

import "testing"

func checkSnake(t *testing.T, in, want string) {
	t.Helper()
	if got := Snake(in); got != want {
		t.Errorf("Snake(%q) = %q, want %q", in, got, want)
	}
}

func TestSnakeSimple(t *testing.T) {
	checkSnake(t, "userName", "user_name")
}

func TestSnakeLeadingAcronym(t *testing.T) {
	checkSnake(t, "HTTPServer", "http_server")
}

func TestSnakeTrailingAcronym(t *testing.T) {
	checkSnake(t, "userID", "user_id")
}

func TestSnakeDigits(t *testing.T) {
	checkSnake(t, "base64Encode", "base64_encode")
}

func TestSnakeAlreadySnake(t *testing.T) {
	checkSnake(t, "already_snake", "already_snake")
}
