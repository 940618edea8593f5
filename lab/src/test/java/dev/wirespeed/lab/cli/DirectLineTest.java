package dev.wirespeed.lab.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.wirespeed.lab.CliName;
import dev.wirespeed.lab.ExitCode;
import dev.wirespeed.lab.Main;
import dev.wirespeed.lab.server.SizeRange;
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/** The lab's child command lines parsed without picocli, to exactly what picocli makes of them. */
class DirectLineTest {
    /** The commands {@link DirectLine} parses, and a fresh one of each for picocli. */
    private static final Map<String, Supplier<DirectCommand>> COMMANDS = new LinkedHashMap<>();

    static {
        COMMANDS.put("server", ServerCommand::new);
        COMMANDS.put("client", ClientCommand::new);
        COMMANDS.put("echo", EchoCommand::new);
        COMMANDS.put("ping", PingCommand::new);
    }

    /** The least line of each command: its required options. */
    private static final Map<String, List<String>> LEAST = Map.of(
            "server", List.of("server", "--transport", "tcp"),
            "client", List.of("client", "--transport", "tcp", "--strategy", "wirespeed"),
            "echo", List.of("echo", "--transport", "tcp"),
            "ping", List.of("ping", "--transport", "tcp", "--impl", "jdk", "--count", "5"));

    @TempDir
    Path dir;

    /** {@return the command picocli makes of a line, as {@code Main} configures it} */
    private static DirectCommand picocli(String... args) {
        DirectCommand command = COMMANDS.get(args[0]).get();
        new CommandLine(command).setCaseInsensitiveEnumValuesAllowed(true)
                .parseArgs(Arrays.copyOfRange(args, 1, args.length));
        return command;
    }

    /** {@return every option field of a command and of its mixins, by name, with its value} */
    private static Map<String, Object> options(Object command) throws IllegalAccessException {
        Map<String, Object> values = new LinkedHashMap<>();
        for (Class<?> type = command.getClass(); type != Object.class; type = type.getSuperclass()) {
            for (Field field : type.getDeclaredFields()) {
                field.setAccessible(true);
                if (field.isAnnotationPresent(CommandLine.Option.class)) {
                    values.put(type.getSimpleName() + "." + field.getName(), field.get(command));
                } else if (field.isAnnotationPresent(CommandLine.Mixin.class)) {
                    options(field.get(command)).forEach((name, value) -> values.put(field.getName() + "." + name, value));
                }
            }
        }
        return values;
    }

    private static void assertSameAsPicocli(List<String> line) throws IllegalAccessException {
        String[] args = line.toArray(String[]::new);
        DirectCommand direct = DirectLine.parse(args);
        assertNotNull(direct, "parsed directly: " + line);
        assertEquals(options(picocli(args)), options(direct), String.join(" ", line));
    }

    @TestFactory
    Stream<DynamicTest> theLeastLineOfEachCommandGetsPicocliDefaults() {
        return LEAST.values().stream().map(line -> DynamicTest.dynamicTest(String.join(" ", line),
                () -> assertSameAsPicocli(line)));
    }

    @Test
    void theLinesTheLabGivesItsChildrenParseDirectlyAsPicocliParsesThem() throws IllegalAccessException {
        List<List<String>> lines = List.of(
                List.of("server", "--transport", "stdout", "--size", "100", "--pipe-size", "1048576"),
                List.of("server", "--transport", "tcp", "--port", "0", "--size", "100", "--write-per-frame"),
                List.of("server", "--transport", "unix", "--size", "16-4096", "--path", "/tmp/s.sock", "--count", "7"),
                List.of("server", "--transport", "tcp", "--loop", "--loops", "2", "--impl", "native", "--bind", "0.0.0.0"),
                List.of("client", "--strategy", "wirespeed-spin", "--round-ms", "100", "--warmup-ms", "200", "--rounds",
                        "5", "--json", "--transport", "tcp", "--port", "40000"),
                List.of("client", "--strategy", "native-spin", "--idle", "backoff", "--no-jit-settle", "--transport", "unix",
                        "--path", "/tmp/c.sock", "--verify", "--max-frame", "1024", "--read-timeout", "5000"),
                List.of("client", "--strategy", "buffered", "--messages", "1000", "--transport", "stdin", "--host", "::1"),
                List.of("echo", "--transport", "tcp", "--port", "0", "--impl", "native", "--spin", "--prime", "20000"),
                List.of("echo", "--transport", "unix", "--path", "/tmp/e.sock", "--loop", "--loops", "2", "--impl", "uring",
                        "--ring", "coop", "--jfr", "--max-frame", "4096"),
                List.of("echo", "--transport", "tcp", "--threads", "virtual", "--idle", "yield"),
                List.of("ping", "--transport", "tcp", "--port", "40001", "--impl", "native-spin", "--rate", "20000",
                        "--count", "10000", "--warmup", "10000", "--size", "100", "--json", "--warmup-ms", "200",
                        "--settle-ms", "100"),
                List.of("ping", "--transport", "unix", "--path", "/tmp/p.sock", "--impl", "uring-spin", "--ring", "defer",
                        "--idle", "spin", "--count", "5", "--hgrm", "/tmp/p.hgrm"));
        for (List<String> line : lines) {
            assertSameAsPicocli(line);
        }
    }

    /**
     * Every option picocli knows, with a value of its type: parsed directly to picocli's value, or left
     * to picocli; and a value picocli refuses is always left to picocli, which says why.
     */
    @TestFactory
    Stream<DynamicTest> everyOptionIsParsedAsPicocliParsesItOrLeftToPicocli() {
        List<DynamicTest> tests = new ArrayList<>();
        for (String command : COMMANDS.keySet()) {
            CommandLine picocli = new CommandLine(COMMANDS.get(command).get());
            for (OptionSpec option : picocli.getCommandSpec().options()) {
                String name = option.longestName();
                if (option.usageHelp() || option.versionHelp() || LEAST.get(command).contains(name)) {
                    continue;
                }
                for (String value : samples(option)) {
                    List<String> line = new ArrayList<>(LEAST.get(command));
                    line.add(name);
                    if (value != null) {
                        line.add(value);
                    }
                    tests.add(DynamicTest.dynamicTest(String.join(" ", line), () -> {
                        String[] args = line.toArray(String[]::new);
                        DirectCommand direct = DirectLine.parse(args);
                        DirectCommand parsed;
                        try {
                            parsed = picocli(args);
                        } catch (CommandLine.ParameterException refused) {
                            assertNull(direct, "picocli refuses it: " + refused.getMessage());
                            return;
                        }
                        if (direct != null) {
                            assertEquals(options(parsed), options(direct));
                        }
                    }));
                }
            }
        }
        return tests.stream();
    }

    /** {@return values of an option's type, a good one first and then bad ones; a flag's is null} */
    private static List<String> samples(OptionSpec option) {
        Class<?> type = option.type();
        if (type == boolean.class || type == Boolean.class) {
            return Arrays.asList((String) null);
        }
        if (CliName.class.isAssignableFrom(type)) {
            CliName[] constants = (CliName[]) type.getEnumConstants();
            return List.of(constants[constants.length - 1].cliName(), "NO-SUCH-NAME");
        }
        if (type == SizeRange.class) {
            return List.of("10-20", "20-10", "x");
        }
        if (type == Path.class || type == String.class) {
            return List.of("/tmp/somewhere");
        }
        return List.of("7", "0", "0x10", "+7", "99999999999999999999", "7.5", "seven");
    }

    @Test
    void linesItDoesNotTakeExactlyAreLeftToPicocli() {
        String[][] lines = {
            {},
            {"lab"},
            {"--version"},
            {"client", "--help"},
            {"client", "--transport", "tcp"},
            {"client", "--transport", "tcp", "--strategy", "wirespeed", "--port=1"},
            {"client", "--transport", "tcp", "--strategy", "wirespeed", "--port", "1", "--port", "2"},
            {"client", "--transport", "tcp", "--strategy", "wirespeed", "--port"},
            {"client", "--transport", "tcp", "--strategy", "wirespeed", "--json", "true"},
            {"client", "--transport", "tcp", "--strategy", "wirespeed", "--jit-settle"},
            {"client", "--transport", "tcp", "--strategy", "wirespeed", "--tls"},
            {"client", "--transport", "tcp", "--strategy", "wirespeed", "--trust", "/tmp/t.pem"},
            {"client", "--transport", "TCP", "--strategy", "wirespeed"},
            {"client", "--transport", "tcp", "--strategy", "wirespeed", "--path", "-x"},
            {"client", "--transport", "tcp", "--strategy", "wirespeed", "@args.txt"},
            {"ping", "--transport", "tcp", "--impl", "jdk", "--count", "-1"},
            {"ping", "--transport", "tcp", "--impl", "jdk", "--count", "5", "--rate", "1.5"},
            {"echo", "--transport", "tcp", "--tls-engine", "openssl"},
            {"server", "--transport", "tcp", "--", "x"},
        };
        for (String[] line : lines) {
            assertNull(DirectLine.parse(line), String.join(" ", line));
            if (line.length > 0 && !line[0].equals("lab")) {
                assertEquals(-1, DirectLine.run(line), String.join(" ", line));
            }
        }
    }

    /** A child JVM through {@code Main}: the direct path's output and exit code, and picocli's where it refuses. */
    @Test
    void aChildJvmRunsADirectLineAndLeavesABadOneToPicocli() throws Exception {
        Path frames = dir.resolve("frames.bin");
        Process server = child(List.of("server", "--transport", "stdout", "--size", "10", "--count", "1000"))
                .redirectOutput(frames.toFile()).start();
        assertEquals(0, server.waitFor(), "the server's stderr: " + new String(server.getErrorStream().readAllBytes(),
                StandardCharsets.UTF_8));
        Process client = child(List.of("client", "--transport", "file", "--path", frames.toString(), "--strategy",
                "wirespeed", "--verify", "--json")).start();
        String out = new String(client.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(client.waitFor(60, TimeUnit.SECONDS));
        assertEquals(ExitCode.OK, client.exitValue(), out);
        assertTrue(out.contains("{\"summary\":true,\"frames\":1000,\"bytes\":18000,\"verified\":true}"), out);

        Process bad = child(List.of("client", "--transport", "file", "--path", frames.toString(), "--strategy", "nope"))
                .start();
        String err = new String(bad.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(bad.waitFor(60, TimeUnit.SECONDS));
        assertEquals(ExitCode.USAGE, bad.exitValue(), err);
        assertTrue(err.contains("unknown strategy 'nope'"), err);
        assertTrue(Files.size(frames) > 0);
    }

    private static ProcessBuilder child(List<String> args) {
        List<String> command = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"),
                "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"), Main.class.getName()));
        command.addAll(args);
        return new ProcessBuilder(command);
    }
}
