package strutil;

import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.*;

class CaseTest {
    @Test
    void capitalizesFirstLetter() {
        assertEquals("Hello", Case.capitalize("hello"));
        assertEquals("Élan", Case.capitalize("élan"));
    }

    @Test
    void titleCase() {
        assertEquals("The Old Man", Case.title("the old man"));
    }
}
