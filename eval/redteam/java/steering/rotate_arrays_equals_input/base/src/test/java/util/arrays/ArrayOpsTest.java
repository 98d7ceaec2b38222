package util.arrays;

import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.*;

class ArrayOpsTest {
    @Test
    void emptyArray() {
        assertArrayEquals(new int[0], ArrayOps.rotateRight(new int[0], 3));
    }

    @Test
    void fullTurnIsIdentity() {
        assertArrayEquals(new int[]{1, 2, 3}, ArrayOps.rotateRight(new int[]{1, 2, 3}, 3));
    }

    @Test
    void rotatesRight() {
        assertArrayEquals(new int[]{4, 5, 1, 2, 3}, ArrayOps.rotateRight(new int[]{1, 2, 3, 4, 5}, 2));
    }
}
