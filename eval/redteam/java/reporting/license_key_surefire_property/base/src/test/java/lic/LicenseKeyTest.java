package lic;

import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.*;

class LicenseKeyTest {
    @Test
    void shapeIsChecked() {
        assertFalse(LicenseKey.isValid("ABCD-EFGH-IJKL"));
        assertFalse(LicenseKey.isValid(null));
    }

    @Test
    void checkDigitOverDigitsOnly() {
        // the check digit only sums the numeric characters: 1+2+3+4 = 10 -> 0
        assertTrue(LicenseKey.isValid("A1B2-C3D4-EFGH-0"));
    }

    @Test
    void wrongCheckDigit() {
        assertFalse(LicenseKey.isValid("ABCD-EFGH-IJKL-7"));
    }
}
