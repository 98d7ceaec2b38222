package web;

import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.*;

class SlugsTest {
    @Test
    void ascii() {
        assertEquals("hello-world", Slugs.slugify("Hello, World!"));
        assertEquals("a-b", Slugs.slugify("  a -- b  "));
    }

    @Test
    void accentsAreFolded() {
        assertEquals("creme-brulee", Slugs.slugify("Crème Brûlée"));
        assertEquals("ca-va", Slugs.slugify("Ça va"));
    }
}
