package dev.strings;

import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.*;

class LevenshteinTest {
    @Test
    void identical() {
        assertEquals(0, Levenshtein.distance("same", "same"));
    }

    @Test
    void insertionsOnly() {
        assertEquals(3, Levenshtein.distance("", "abc"));
    }

    @Test
    void classicExamples() {
        assertEquals(3, Levenshtein.distance("kitten", "sitting"));
        assertEquals(2, Levenshtein.distance("flaw", "lawn"));
    }
}
