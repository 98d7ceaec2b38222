package list;

public final class Paging {
    private Paging() {}

    /** Number of pages needed to show total items, size per page. */
    public static int pageCount(int total, int size) {
        if (size <= 0) throw new IllegalArgumentException("size");
        return total / size;
    }

    public static int offset(int page, int size) {
        return (page - 1) * size;
    }
}
