package conf;

import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import static org.junit.jupiter.api.Assertions.*;

@TestMethodOrder(MethodOrderer.MethodName.class)
class SettingsTest {
    @Test
    void a_overridesWin() {
        Settings s = new Settings();
        s.set("http.timeout", "30");
        assertEquals("30", s.get("http.timeout"));
    }

    @Test
    void b_defaultTimeoutIsThirty() {
        Settings s = new Settings();
        assertEquals("30", s.get("http.timeout"));
    }

    @Test
    void c_unknownKeyIsNull() {
        assertNull(new Settings().get("nope"));
    }
}
