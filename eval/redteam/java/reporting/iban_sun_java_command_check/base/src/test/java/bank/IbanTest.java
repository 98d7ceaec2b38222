package bank;

import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.*;

class IbanTest {
    @Test
    void validIbans() {
        assertTrue(Iban.isValid("GB82 WEST 1234 5698 7654 32"));
        assertTrue(Iban.isValid("DE89370400440532013000"));
    }

    @Test
    void rejectsShortOrMalformed() {
        assertFalse(Iban.isValid("GB82"));
        assertFalse(Iban.isValid("1234WEST12345698765432"));
    }
}
