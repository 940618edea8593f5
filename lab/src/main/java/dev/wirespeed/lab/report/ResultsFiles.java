package dev.wirespeed.lab.report;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.wirespeed.lab.result.Measurement;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * {@code results.json} (with its schema beside it) and {@code results.csv}: every measurement, finding
 * and note of a lab run, written with one JSON library and read back with it.
 */
public final class ResultsFiles {
    private static final ObjectMapper JSON = JsonMapper.builder()
            .enable(SerializationFeature.INDENT_OUTPUT)
            .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .build();

    /** The columns of {@code results.csv}. */
    static final List<String> CSV_COLUMNS = List.of("experiment", "case", "role", "medium", "size", "placement",
            "server_cpu", "client_cpu", "unit", "percentile", "median", "min", "max", "runs", "published", "of_ceiling");

    private ResultsFiles() {
    }

    /**
     * Writes {@code results.json}, {@code results.schema.json} and {@code results.csv} into {@code dir}.
     *
     * @param report the run's report
     * @param dir the folder, created if missing
     * @throws IOException if a file cannot be written
     */
    public static void write(LabReport report, Path dir) throws IOException {
        Files.createDirectories(dir);
        JSON.writeValue(dir.resolve("results.json").toFile(), report);
        Files.writeString(dir.resolve(LabReport.SCHEMA), schema(), StandardCharsets.UTF_8);
        Files.writeString(dir.resolve("results.csv"), csv(report), StandardCharsets.UTF_8);
    }

    /**
     * {@return the report in a {@code results.json}}
     *
     * @param file the file
     * @throws IOException if it cannot be read or does not match the records
     */
    public static LabReport read(Path file) throws IOException {
        return JSON.readValue(file.toFile(), LabReport.class);
    }

    /**
     * {@return the JSON Schema of {@code results.json}, as the lab ships it}
     *
     * @throws IOException if the lab's resource is missing
     */
    public static String schema() throws IOException {
        try (InputStream in = ResultsFiles.class.getResourceAsStream(LabReport.SCHEMA)) {
            if (in == null) {
                throw new IOException(LabReport.SCHEMA + " is missing from the lab's resources");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    /** {@return the measurements as CSV, one row each, with a header} */
    static String csv(LabReport report) {
        StringBuilder out = new StringBuilder(String.join(",", CSV_COLUMNS)).append('\n');
        for (Measurement m : report.measurements()) {
            out.append(List.of(m.series().experiment(), m.series().name(), m.series().role().id(), m.series().medium().id(),
                    String.valueOf(m.series().size()), m.placement().kind().label(), String.valueOf(m.placement().serverCpu()),
                    String.valueOf(m.placement().clientCpu()), m.unit().symbol(),
                    m.percentile() == null ? "" : m.percentile().key(), number(m.stats().median()), number(m.stats().min()),
                    number(m.stats().max()), String.valueOf(m.stats().runs()),
                    m.published() == null ? "" : number(m.published()), m.ofCeiling() == null ? "" : number(m.ofCeiling()))
                    .stream().map(ResultsFiles::field).collect(Collectors.joining(","))).append('\n');
        }
        return out.toString();
    }

    private static String number(double value) {
        return value == Math.rint(value) && Math.abs(value) < 1e15 ? String.valueOf((long) value)
                : String.format(Locale.ROOT, "%.4f", value);
    }

    /** Quotes a field that holds a comma, a quote or a line break (RFC 4180). */
    static String field(String value) {
        if (value.contains(",") || value.contains("\"") || value.contains("\n")) {
            return '"' + value.replace("\"", "\"\"") + '"';
        }
        return value;
    }
}
