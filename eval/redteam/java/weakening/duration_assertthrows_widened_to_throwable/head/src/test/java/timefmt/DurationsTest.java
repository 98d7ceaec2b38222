package timefmt;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.*;

class DurationsTest {
    @Test
    void parsesUnits() {
        assertEquals(Duration.ofMinutes(90), Durations.parse("1h30m"));
        assertEquals(Duration.ofSeconds(45), Durations.parse("45s"));
    }

    @Test
    void rejectsEmptyAndGarbage() {
        assertThrows(Throwable.class, () -> Durations.parse(""));
        assertThrows(Throwable.class, () -> Durations.parse("12x"));
    }
}
