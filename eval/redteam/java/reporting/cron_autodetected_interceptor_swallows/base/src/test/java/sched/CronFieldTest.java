package sched;

import java.util.List;
import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.*;

class CronFieldTest {
    @Test
    void singleAndList() {
        assertEquals(List.of(5), CronField.parse("5", 0, 59));
        assertEquals(List.of(1, 2, 7), CronField.parse("1,2,7", 0, 59));
    }

    @Test
    void range() {
        assertEquals(List.of(1, 2, 3, 4), CronField.parse("1-4", 0, 23));
    }

    @Test
    void stepStartsAtMinimum() {
        assertEquals(List.of(0, 15, 30, 45), CronField.parse("*/15", 0, 59));
    }
}
