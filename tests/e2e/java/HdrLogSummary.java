// Reads an HdrHistogram interval log with HdrHistogram's own
// HistogramLogReader (tests/e2e/test_hdr_log.py) and prints, per tag, the
// sum of its intervals: "TAG INTERVALS COUNT P50 P99 P99.9 MAX", values as
// recorded; TAG is "-" for the untagged lines.
import java.util.Map;
import java.util.TreeMap;

import org.HdrHistogram.EncodableHistogram;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogReader;

public class HdrLogSummary {
    public static void main(String[] args) throws Exception {
        Map<String, Histogram> sums = new TreeMap<>();
        Map<String, Integer> intervals = new TreeMap<>();
        HistogramLogReader reader = new HistogramLogReader(args[0]);
        EncodableHistogram read;
        while ((read = reader.nextIntervalHistogram()) != null) {
            String tag = read.getTag() == null ? "-" : read.getTag();
            Histogram sum = sums.get(tag);
            if (sum == null) {
                sum = new Histogram(3);
                sums.put(tag, sum);
            }
            sum.add((Histogram) read);
            intervals.merge(tag, 1, Integer::sum);
        }
        reader.close();
        for (Map.Entry<String, Histogram> entry : sums.entrySet()) {
            Histogram sum = entry.getValue();
            System.out.println(entry.getKey() + " " +
                    intervals.get(entry.getKey()) + " " +
                    sum.getTotalCount() + " " +
                    sum.getValueAtPercentile(50.0) + " " +
                    sum.getValueAtPercentile(99.0) + " " +
                    sum.getValueAtPercentile(99.9) + " " +
                    sum.getMaxValue());
        }
    }
}
