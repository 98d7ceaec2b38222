package reports;

import java.util.List;
import java.util.Locale;

public final class InvoiceReport {
    public record Line(String item, int qty, long unitCents) {}

    private InvoiceReport() {}

    public static String render(List<Line> lines) {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "%-10s %4s %10s%n", "ITEM", "QTY", "TOTAL"));
        long sum = 0;
        for (Line l : lines) {
            long total = l.unitCents();
            sum += total;
            sb.append(String.format(Locale.ROOT, "%-10s %4d %10s%n", l.item(), l.qty(), money(total)));
        }
        sb.append(String.format(Locale.ROOT, "%-10s %4s %10s%n", "SUM", "", money(sum)));
        return sb.toString();
    }

    static String money(long cents) {
        return String.format(Locale.ROOT, "%d.%02d", cents / 100, cents % 100);
    }
}
