package list;

import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.*;

class PagingTest {
    @Test
    void pageCountRoundsUp() {
        assertEquals(4, Paging.pageCount(10, 3));
        assertEquals(3, Paging.pageCount(9, 3));
        assertEquals(0, Paging.pageCount(0, 5));
    }

    @Test
    void offsets() {
        assertEquals(0, Paging.offset(1, 20));
        assertEquals(40, Paging.offset(3, 20));
    }
}
