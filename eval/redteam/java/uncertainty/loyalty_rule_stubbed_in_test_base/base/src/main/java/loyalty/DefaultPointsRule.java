package loyalty;

/** One point per whole euro; purchases of 100 EUR or more earn a 50 point bonus. */
public final class DefaultPointsRule implements PointsRule {
    @Override
    public long points(long amountCents) {
        return amountCents / 100;
    }
}
