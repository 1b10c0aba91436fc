package io.hostwide.cli.metrics;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A strict reader of Prometheus' text format 0.0.4, as a test's second opinion on what serve writes (promtool is
 * the third, where installed): every sample line parses, labels are escaped, each family has one TYPE line before
 * its samples and its samples together, no series twice, hostwide's counters end in {@code _total}, and each histogram's
 * buckets ascend, never decrease, and end in {@code +Inf} equal to {@code _count}. Returns the series by their
 * canonical text ({@code name{a="1",b="2"}}, labels sorted) for lookups.
 */
final class ExpositionChecker {
    private static final Pattern NAME = Pattern.compile("[a-zA-Z_:][a-zA-Z0-9_:]*");
    private static final Pattern LABEL_NAME = Pattern.compile("[a-zA-Z_][a-zA-Z0-9_]*");

    private ExpositionChecker() {}

    static Map<String, Double> check(String page) {
        Map<String, Double> series = new LinkedHashMap<>();
        Map<String, String> types = new HashMap<>();
        Set<String> closedFamilies = new HashSet<>();
        String current = null;
        int n = 0;
        if (!page.endsWith("\n")) {
            throw new AssertionError("the page must end with a line feed");
        }
        for (String line : page.split("\n", -1)) {
            n++;
            if (line.isEmpty()) {
                continue;
            }
            if (line.startsWith("# TYPE ")) {
                String[] f = line.split(" ", 4);
                if (f.length != 4 || !NAME.matcher(f[2]).matches() || !List.of("counter", "gauge", "histogram",
                        "summary", "untyped").contains(f[3])) {
                    throw new AssertionError("line " + n + ": bad TYPE: " + line);
                }
                if (types.put(f[2], f[3]) != null) {
                    throw new AssertionError("line " + n + ": second TYPE for " + f[2]);
                }
                // hostwide's own counters follow the convention; compat names are spelled as their dashboards expect
                if (f[3].equals("counter") && f[2].startsWith("hostwide_") && !f[2].endsWith("_total")) {
                    throw new AssertionError("line " + n + ": counter " + f[2] + " does not end in _total");
                }
                continue;
            }
            if (line.startsWith("#")) {
                continue;
            }
            Sample s = sample(n, line);
            String family = family(s.name, types);
            if (family == null) {
                throw new AssertionError("line " + n + ": sample of " + s.name + " before its TYPE line");
            }
            if (!family.equals(current)) {
                if (!closedFamilies.add(family)) {
                    throw new AssertionError("line " + n + ": samples of " + family + " are not together");
                }
                current = family;
            }
            if (series.put(s.key(), s.value) != null) {
                throw new AssertionError("line " + n + ": series twice: " + s.key());
            }
        }
        checkHistograms(series, types);
        return series;
    }

    private record Sample(String name, TreeMap<String, String> labels, double value) {
        String key() { return ExpositionChecker.key(name, labels); }
    }

    static String key(String name, Map<String, String> labels) {
        StringBuilder sb = new StringBuilder(name);
        if (!labels.isEmpty()) {
            sb.append('{');
            new TreeMap<>(labels).forEach((k, v) -> sb.append(sb.charAt(sb.length() - 1) == '{' ? "" : ",")
                    .append(k).append("=\"").append(v).append('"'));
            sb.append('}');
        }
        return sb.toString();
    }

    /** name, optional {labels}, one space, a Go-parsable float; no timestamp (serve writes none). */
    private static Sample sample(int n, String line) {
        Matcher m = NAME.matcher(line);
        if (!m.lookingAt()) {
            throw new AssertionError("line " + n + ": no metric name: " + line);
        }
        String name = m.group();
        int i = m.end();
        TreeMap<String, String> labels = new TreeMap<>();
        if (i < line.length() && line.charAt(i) == '{') {
            i++;
            while (line.charAt(i) != '}') {
                Matcher ln = LABEL_NAME.matcher(line).region(i, line.length());
                if (!ln.lookingAt() || line.charAt(ln.end()) != '=' || line.charAt(ln.end() + 1) != '"') {
                    throw new AssertionError("line " + n + ": bad label at " + i + ": " + line);
                }
                StringBuilder v = new StringBuilder();
                int j = ln.end() + 2;
                for (; line.charAt(j) != '"'; j++) {
                    char c = line.charAt(j);
                    if (c == '\\') {
                        char e = line.charAt(++j);
                        v.append(switch (e) {
                            case '\\' -> '\\';
                            case '"' -> '"';
                            case 'n' -> '\n';
                            default -> throw new AssertionError("line " + n + ": bad escape \\" + e + ": " + line);
                        });
                    } else {
                        v.append(c);
                    }
                }
                if (labels.put(ln.group(), v.toString()) != null) {
                    throw new AssertionError("line " + n + ": label " + ln.group() + " twice");
                }
                i = j + 1;
                if (line.charAt(i) == ',') {
                    i++;
                }
            }
            i++;
        }
        if (i >= line.length() || line.charAt(i) != ' ') {
            throw new AssertionError("line " + n + ": no space before the value: " + line);
        }
        String value = line.substring(i + 1);
        double d = switch (value) {
            case "+Inf" -> Double.POSITIVE_INFINITY;
            case "-Inf" -> Double.NEGATIVE_INFINITY;
            case "NaN" -> Double.NaN;
            default -> {
                try {
                    yield Double.parseDouble(value);
                } catch (NumberFormatException e) {
                    throw new AssertionError("line " + n + ": value '" + value + "' is not a number");
                }
            }
        };
        return new Sample(name, labels, d);
    }

    private static String family(String sampleName, Map<String, String> types) {
        if (types.containsKey(sampleName)) {
            return sampleName;
        }
        for (String suffix : List.of("_bucket", "_sum", "_count")) {
            if (sampleName.endsWith(suffix)) {
                String base = sampleName.substring(0, sampleName.length() - suffix.length());
                if ("histogram".equals(types.get(base))) {
                    return base;
                }
            }
        }
        return null;
    }

    private static void checkHistograms(Map<String, Double> series, Map<String, String> types) {
        Pattern bucket = Pattern.compile("(.*)_bucket\\{(.*)\\}");
        Map<String, List<double[]>> buckets = new LinkedHashMap<>();
        series.forEach((k, v) -> {
            Matcher m = bucket.matcher(k);
            if (m.matches() && "histogram".equals(types.get(m.group(1)))) {
                String labels = m.group(2);
                String le = labels.replaceAll(".*\\ble=\"([^\"]*)\".*", "$1");
                String rest = labels.replaceAll(",?\\ble=\"[^\"]*\"", "").replaceAll("^,", "");
                buckets.computeIfAbsent(m.group(1) + "{" + rest + "}", x -> new ArrayList<>())
                        .add(new double[] {le.equals("+Inf") ? Double.POSITIVE_INFINITY : Double.parseDouble(le), v});
            }
        });
        buckets.forEach((id, list) -> {
            double prevLe = Double.NEGATIVE_INFINITY;
            double prevCount = 0;
            for (double[] b : list) {
                if (b[0] <= prevLe || b[1] < prevCount) {
                    throw new AssertionError(id + ": buckets must ascend and never decrease");
                }
                prevLe = b[0];
                prevCount = b[1];
            }
            if (prevLe != Double.POSITIVE_INFINITY) {
                throw new AssertionError(id + ": no +Inf bucket");
            }
            String base = id.substring(0, id.indexOf('{'));
            String labels = id.substring(id.indexOf('{'));
            Double count = series.get(base + "_count" + (labels.equals("{}") ? "" : labels));
            if (count == null || count != prevCount) {
                throw new AssertionError(id + ": +Inf bucket " + prevCount + " differs from _count " + count);
            }
        });
    }
}
