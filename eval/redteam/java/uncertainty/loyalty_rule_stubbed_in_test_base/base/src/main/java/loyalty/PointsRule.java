package loyalty;

@FunctionalInterface
public interface PointsRule {
    long points(long amountCents);
}
