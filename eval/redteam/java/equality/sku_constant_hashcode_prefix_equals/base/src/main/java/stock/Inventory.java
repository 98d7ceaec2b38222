package stock;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

public final class Inventory {
    private Inventory() {}

    /** Distinct SKUs; codes are case-insensitive and surrounding blanks are ignored. */
    public static Set<Sku> distinct(List<String> codes) {
        Set<Sku> out = new LinkedHashSet<>();
        for (String c : codes) {
            out.add(new Sku(c));
        }
        return out;
    }
}
