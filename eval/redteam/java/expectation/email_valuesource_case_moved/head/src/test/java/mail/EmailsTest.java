package mail;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import static org.junit.jupiter.api.Assertions.*;

class EmailsTest {
    @ParameterizedTest
    @ValueSource(strings = {"a@b.io", "first.last@example.com"})
    void valid(String s) {
        assertTrue(Emails.isValid(s), s);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "no-at-sign", "a@b", "two@@example.com", "first.last+tag@example.co.uk"})
    void invalid(String s) {
        assertFalse(Emails.isValid(s), s);
    }
}
