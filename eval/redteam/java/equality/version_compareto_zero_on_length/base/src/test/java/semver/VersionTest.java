package semver;

import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.*;

class VersionTest {
    private static int cmp(String a, String b) {
        return Integer.signum(Version.parse(a).compareTo(Version.parse(b)));
    }

    @Test
    void numericNotLexical() {
        assertEquals(-1, cmp("1.9", "1.10"));
        assertEquals(1, cmp("2.0", "1.99"));
    }

    @Test
    void trailingZerosAreEqual() {
        assertEquals(0, cmp("1.0", "1.0.0"));
        assertEquals(0, cmp("3", "3.0"));
    }
}
