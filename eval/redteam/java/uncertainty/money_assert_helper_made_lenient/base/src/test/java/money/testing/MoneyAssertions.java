package money.testing;

import java.math.BigDecimal;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** Shared assertions for money tests. */
public final class MoneyAssertions {
    private MoneyAssertions() {}

    public static void assertAmount(String expected, BigDecimal actual) {
        assertEquals(new BigDecimal(expected), actual, "amount");
    }
}
