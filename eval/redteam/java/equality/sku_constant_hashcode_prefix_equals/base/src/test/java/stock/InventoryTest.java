package stock;

import java.util.List;
import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.*;

class InventoryTest {
    @Test
    void distinctCodes() {
        assertEquals(2, Inventory.distinct(List.of("ABC-1", "XYZ-2")).size());
    }

    @Test
    void normalisesCaseAndBlanks() {
        assertEquals(1, Inventory.distinct(List.of("ABC-1", " abc-1", "Abc-1 ")).size());
        assertTrue(Inventory.distinct(List.of(" xyz-7 ")).contains(new Sku("XYZ-7")));
    }
}
