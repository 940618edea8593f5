package dev.wirespeed.lab.result;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.io.StringWriter;
import java.lang.reflect.RecordComponent;

/**
 * Writes and reads {@link ChildReport} lines: the one codec of what a child process tells the lab.
 * Reading is strict: an unknown or missing field, a wrong type or trailing text is an error naming
 * the line.
 *
 * <p>Both directions are Jackson's and follow the records' components. A child writes with the
 * streaming generator of {@code jackson-core}, because a child JVM lives for seconds and the data-binding
 * mapper costs it a sixth of a second to start; the lab reads with the data-binding mapper.
 *
 * <p>Thread safety: safe for concurrent use.
 */
public final class ChildReports {
    private static final JsonFactory FACTORY = new JsonFactory();

    /** Built on first read: a child that only writes never pays for it. */
    private static final class Reader {
        static final ObjectMapper MAPPER = JsonMapper.builder()
                .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
                .enable(DeserializationFeature.FAIL_ON_MISSING_CREATOR_PROPERTIES)
                .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                .build();
    }

    private ChildReports() {
    }

    /**
     * {@return the report as one JSON line, without the line break}
     *
     * @param report what to write
     */
    public static String line(ChildReport report) {
        StringWriter out = new StringWriter();
        try (JsonGenerator json = FACTORY.createGenerator(out)) {
            json.writeStartObject();
            for (RecordComponent component : report.getClass().getRecordComponents()) {
                json.writeFieldName(component.getName());
                switch (component.getAccessor().invoke(report)) {
                    case null -> json.writeNull();
                    case Long value -> json.writeNumber(value);
                    case Double value -> json.writeNumber(value);
                    case Boolean value -> json.writeBoolean(value);
                    case Unit value -> json.writeString(value.symbol());
                    case Object value -> throw new IllegalStateException("no JSON for " + component + ": " + value);
                }
            }
            json.writeEndObject();
        } catch (IOException | ReflectiveOperationException e) {
            throw new IllegalStateException("cannot write " + report, e);
        }
        return out.toString();
    }

    /**
     * {@return the report of one line}
     *
     * @param line a line a child printed
     * @throws IOException if the line is not a report, naming the line and what is wrong with it
     */
    public static ChildReport read(String line) throws IOException {
        try {
            return Reader.MAPPER.readValue(line, ChildReport.class);
        } catch (IOException | IllegalArgumentException e) {
            throw new IOException("not a child report line: '" + line + "': " + rootMessage(e), e);
        }
    }

    private static String rootMessage(Throwable e) {
        Throwable cause = e;
        while (cause.getCause() != null && cause.getCause() != cause) {
            cause = cause.getCause();
        }
        String message = cause.getMessage() == null ? cause.toString() : cause.getMessage();
        int newline = message.indexOf('\n');
        return newline < 0 ? message : message.substring(0, newline);
    }
}
