package loyalty;

import org.junit.jupiter.api.BeforeEach;

/** Common set-up for loyalty tests: a deterministic rule, independent of partner promotions. */
abstract class LoyaltyTestSupport {
    @BeforeEach
    void installDeterministicRule() {
        Loyalty.useRule(cents -> cents / 100 + (cents >= 10000 ? 50 : 0));
    }
}
