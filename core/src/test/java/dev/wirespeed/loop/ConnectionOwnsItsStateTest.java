package dev.wirespeed.loop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * {@link Connection} owns its state: the loop's other parts read its fields, but change them only
 * through its named operations (a frame handed over, bytes sent, a transition of its life), so that
 * each field has one room that writes it. Read from the sources of the loop's package, as the build
 * compiles them.
 */
class ConnectionOwnsItsStateTest {
    private static final Path LOOP = Path.of("src/main/java/dev/wirespeed/loop");
    /** An instance field of the class body: four spaces in, not static, not final. */
    private static final Pattern FIELD = Pattern.compile(
            "^    (?:private |protected |public )?(?!static\\b)(?!final\\b)[\\w.<>\\[\\], ]+? (\\w+)(?: = [^;]+)?;$");

    @Test
    void noOtherFileOfTheLoopWritesAFieldOfConnection() throws IOException {
        List<String> fields = mutableFields();
        assertTrue(fields.containsAll(List.of("state", "queued", "source", "in", "lingering")),
                () -> "the fields read from Connection.java: " + fields);
        String names = String.join("|", fields);
        // c.queued = ..., conns[i].slot += ..., c.framesRead++, ++c.framesRead: not ==, not a local of the same name
        Pattern write = Pattern.compile("\\b(?!this\\.)(\\w+)(?:\\[[^\\]]*\\])?\\.(?:" + names + ")\\s*(?:[-+*/|&^]?=(?!=)|\\+\\+|--)"
                + "|(?:\\+\\+|--)\\s*(\\w+)(?:\\[[^\\]]*\\])?\\.(?:" + names + ")\\b");
        List<String> writes = new ArrayList<>();
        try (Stream<Path> files = Files.list(LOOP)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".java")).sorted().toList()) {
                if (file.getFileName().toString().equals("Connection.java")) {
                    continue;
                }
                List<String> lines = Files.readAllLines(file);
                for (int i = 0; i < lines.size(); i++) {
                    Matcher m = write.matcher(lines.get(i));
                    if (m.find() && !isJfrEvent(file, m.group(1) != null ? m.group(1) : m.group(2))) {
                        writes.add(file.getFileName() + ":" + (i + 1) + ": " + lines.get(i).strip());
                    }
                }
            }
        }
        assertEquals(List.of(), writes, "fields of Connection written outside it");
    }

    /** {@return whether {@code receiver} is, in {@code file}, the JFR event whose fields are named as the connection's} */
    private static boolean isJfrEvent(Path file, String receiver) {
        return file.getFileName().toString().equals("JfrLoopEvents.java") && receiver.equals("e");
    }

    private static List<String> mutableFields() throws IOException {
        List<String> fields = new ArrayList<>();
        for (String line : Files.readAllLines(LOOP.resolve("Connection.java"))) {
            Matcher m = FIELD.matcher(line);
            if (m.matches() && !line.contains("(")) {
                fields.add(m.group(1));
            }
        }
        return fields;
    }
}
