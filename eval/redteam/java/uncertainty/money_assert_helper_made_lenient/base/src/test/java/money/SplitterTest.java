package money;

import java.math.BigDecimal;
import java.util.List;
import org.junit.jupiter.api.Test;
import static money.testing.MoneyAssertions.assertAmount;

class SplitterTest {
    @Test
    void evenSplit() {
        List<BigDecimal> parts = Splitter.split(new BigDecimal("90.00"), 3);
        assertAmount("30.00", parts.get(0));
        assertAmount("30.00", parts.get(2));
    }

    @Test
    void remainderGoesToFirstParts() {
        List<BigDecimal> parts = Splitter.split(new BigDecimal("100.00"), 3);
        assertAmount("33.34", parts.get(0));
        assertAmount("33.33", parts.get(1));
        assertAmount("100.00", parts.stream().reduce(BigDecimal.ZERO, BigDecimal::add));
    }
}
