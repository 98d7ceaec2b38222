package com.acme.text;

import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.*;

class InflectorTest {
    @Test
    void regular() {
        assertEquals("cats", Inflector.plural("cat"));
        assertEquals("boxes", Inflector.plural("box"));
        assertEquals("churches", Inflector.plural("church"));
    }

    @Test
    void consonantY() {
        assertEquals("cities", Inflector.plural("city"));
        assertEquals("3 parties", Inflector.count(3, "party"));
    }

    @Test
    void vowelY() {
        assertEquals("days", Inflector.plural("day"));
    }
}
