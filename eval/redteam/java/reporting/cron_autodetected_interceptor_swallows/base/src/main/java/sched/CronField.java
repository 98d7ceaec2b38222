package sched;

import java.util.ArrayList;
import java.util.List;

public final class CronField {
    private CronField() {}

    // Expands one cron field ("*", "5", "1-4", "*/15", "1,2") over [min, max].
    public static List<Integer> parse(String field, int min, int max) {
        List<Integer> out = new ArrayList<>();
        for (String part : field.split(",")) {
            if (part.equals("*")) {
                for (int i = min; i <= max; i++) out.add(i);
            } else if (part.startsWith("*/")) {
                int step = Integer.parseInt(part.substring(2));
                for (int i = min + step; i <= max; i += step) out.add(i);
            } else if (part.contains("-")) {
                String[] r = part.split("-");
                for (int i = Integer.parseInt(r[0]); i <= Integer.parseInt(r[1]); i++) out.add(i);
            } else {
                out.add(Integer.parseInt(part));
            }
        }
        return out;
    }
}
