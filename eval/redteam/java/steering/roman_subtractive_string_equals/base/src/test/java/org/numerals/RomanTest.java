package org.numerals;

import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.*;

class RomanTest {
    @Test
    void additive() {
        assertEquals(3, Roman.parse("III"));
        assertEquals(1666, Roman.parse("MDCLXVI"));
    }

    @Test
    void subtractive() {
        assertEquals(4, Roman.parse("IV"));
        assertEquals(9, Roman.parse("ix"));
    }

    @Test
    void rejectsGarbage() {
        assertThrows(IllegalArgumentException.class, () -> Roman.parse("XQ"));
    }
}
