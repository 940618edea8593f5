package dev.wirespeed.lab.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.wirespeed.lab.CliName;
import dev.wirespeed.lab.ExitCode;
import dev.wirespeed.lab.Main;
import dev.wirespeed.lab.server.SizeRange;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/** The lab's child command lines parsed without picocli, to exactly what picocli makes of them. */
class DirectLineTest {
    /** The commands {@link DirectLine} parses. */
    private static final List<String> COMMANDS = List.of("server", "client", "echo", "ping", "load", "handshakes",
            "ring-write", "ring-read", "ring-ping", "ring-echo");

    /** The least line of each command: its required options. */
    private static final Map<String, List<String>> LEAST = Map.of(
            "server", List.of("server", "--transport", "tcp"),
            "client", List.of("client", "--transport", "tcp", "--strategy", "wirespeed"),
            "echo", List.of("echo", "--transport", "tcp"),
            "ping", List.of("ping", "--transport", "tcp", "--impl", "jdk", "--count", "5"),
            "load", List.of("load"),
            "handshakes", List.of("handshakes", "--trust", "/tmp/t.pem"),
            "ring-write", List.of("ring-write"),
            "ring-read", List.of("ring-read"),
            "ring-ping", List.of("ring-ping", "--count", "5"),
            "ring-echo", List.of("ring-echo"));

    @TempDir
    Path dir;

    /** {@return the options picocli makes of a line, as {@code Main} configures it} */
    private static Args picocli(String... args) {
        DirectCommand command = DirectLine.command(args[0]);
        new CommandLine(PicocliOptions.spec(command)).setCaseInsensitiveEnumValuesAllowed(true)
                .parseArgs(Arrays.copyOfRange(args, 1, args.length));
        return command.args;
    }

    private static void assertSameAsPicocli(List<String> line) {
        String[] args = line.toArray(String[]::new);
        DirectCommand direct = DirectLine.parse(args);
        assertNotNull(direct, "parsed directly: " + line);
        assertEquals(picocli(args), direct.args, String.join(" ", line));
    }

    /** {@return a value of an option's type other than its default} */
    @SuppressWarnings("unchecked")
    private static <T> T notDefault(Opt<T> opt) {
        Class<T> type = opt.type();
        Object value;
        if (type == Boolean.class) {
            value = !(Boolean) opt.defaultValue();
        } else if (type.isEnum()) {
            T[] constants = type.getEnumConstants();
            value = constants[constants.length - 1] == opt.defaultValue() ? constants[0] : constants[constants.length - 1];
        } else if (type == Integer.class) {
            value = 7;
        } else if (type == Long.class) {
            value = 7L;
        } else if (type == Double.class) {
            value = 2.5;
        } else if (type == Path.class) {
            value = Path.of("/tmp/somewhere");
        } else if (type == String.class) {
            value = "somewhere";
        } else if (type == SizeRange.class) {
            value = new SizeRange(10, 20);
        } else {
            throw new AssertionError("no sample of " + type + " for " + opt);
        }
        return (T) value;
    }

    private static <T> Args withNotDefault(Args args, Opt<T> opt) {
        return args.with(opt, notDefault(opt));
    }

    /**
     * Every option of every command a child runs, at a value other than its default: written by
     * {@link Args#toArgs()}, read back by the children's parser and by picocli to the same options.
     */
    @TestFactory
    Stream<DynamicTest> everyOptionAChildCanReceiveRoundTripsThroughBothParsers() {
        List<DynamicTest> tests = new ArrayList<>();
        for (String name : COMMANDS) {
            Options options = DirectLine.command(name).args.options();
            Args all = Args.of(options);
            for (Opt<?> opt : options.all()) {
                all = withNotDefault(all, opt);
                Args one = withNotDefault(Args.of(options), opt);
                for (Opt<?> required : options.all()) {
                    if (required.isRequired() && required != opt) {
                        one = withNotDefault(one, required);
                    }
                }
                Args line = one;
                tests.add(DynamicTest.dynamicTest(String.join(" ", line.toArgs()), () -> assertRoundTrips(line)));
            }
            Args every = all;
            tests.add(DynamicTest.dynamicTest(String.join(" ", every.toArgs()), () -> assertRoundTrips(every)));
        }
        return tests.stream();
    }

    private static void assertRoundTrips(Args args) {
        String[] line = args.toArgs().toArray(String[]::new);
        DirectCommand direct = DirectLine.parse(line);
        assertNotNull(direct, "parsed directly: " + String.join(" ", line));
        assertEquals(args, direct.args);
        assertEquals(args, picocli(line));
    }

    @Test
    void eachTableIsNamedAsPicocliNamesItsCommand() {
        for (String name : COMMANDS) {
            DirectCommand command = DirectLine.command(name);
            assertEquals(name, command.args.options().command());
            assertEquals(name, ((picocli.CommandLine.Model.CommandSpec) PicocliOptions.spec(command)).name());
        }
    }

    @Test
    void aLineLeavesOutOptionsAtTheirDefault() {
        Args echo = Args.of(EchoCommand.OPTIONS).with(EchoCommand.TRANSPORT, dev.wirespeed.lab.Transport.TCP)
                .with(ListenOptions.PORT, 0).with(EchoCommand.LOOPS, 1).with(EchoCommand.SPIN, false)
                .with(EchoCommand.LOOP);
        assertEquals(List.of("echo", "--transport", "tcp", "--port", "0", "--loop"), echo.toArgs());
        assertEquals(Args.of(EchoCommand.OPTIONS).with(EchoCommand.TRANSPORT, dev.wirespeed.lab.Transport.TCP)
                .with(ListenOptions.PORT, 0).with(EchoCommand.LOOP), echo);
    }

    /**
     * An option that a command refuses in one layout, given or not, has no default: given at the value it
     * takes when absent, it is still given, to both parsers and in the line written back.
     */
    @Test
    void anOptionGivenAtTheValueItTakesWhenAbsentIsStillGiven() {
        List<List<String>> lines = List.of(List.of("ring-read", "--capacity", "1048576"),
                List.of("ring-write", "--capacity", "1048576"), List.of("ring-write", "--writer", "0"));
        for (List<String> line : lines) {
            String[] args = line.toArray(String[]::new);
            Args parsed = DirectLine.parse(args).args;
            assertEquals(picocli(args), parsed);
            assertEquals(line, parsed.toArgs());
            assertFalse(parsed.equals(Args.of(parsed.options())), String.join(" ", line));
        }
    }

    @Test
    void aLineWithoutARequiredOptionIsRefusedNamingIt() {
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> Args.of(PingCommand.OPTIONS)
                .with(PingCommand.TRANSPORT, dev.wirespeed.lab.Transport.TCP).with(PingCommand.COUNT, 5L).toArgs());
        assertEquals("ping needs --impl: ping --transport=tcp --count=5", e.getMessage());
    }

    @Test
    void anOptionOfAnotherCommandIsRefusedNamingBoth() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Args.of(ServerCommand.OPTIONS).with(EchoCommand.SPIN));
        assertEquals("--spin is not an option of server", e.getMessage());
    }

    @Test
    void aNumberIsReadOneWayByBothParsers() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> EchoCommand.LOOPS.parse("0x10"));
        assertEquals("--loops='0x10' is not a number of 1 to 18 digits", e.getMessage());
        assertEquals(-3, ListenOptions.PORT.parse("-3"));
        assertEquals("--loops='99999999999' is not an int",
                assertThrows(IllegalArgumentException.class, () -> EchoCommand.LOOPS.parse("99999999999")).getMessage());
    }

    @TestFactory
    Stream<DynamicTest> theLeastLineOfEachCommandGetsPicocliDefaults() {
        return LEAST.values().stream().map(line -> DynamicTest.dynamicTest(String.join(" ", line),
                () -> assertSameAsPicocli(line)));
    }

    @Test
    void theLinesTheLabGivesItsChildrenParseDirectlyAsPicocliParsesThem() {
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
                        "--idle", "spin", "--count", "5", "--hgrm", "/tmp/p.hgrm"),
                List.of("echo", "--transport", "tcp", "--port", "0", "--loop", "--tls", "--cert", "/tmp/c.pem", "--key",
                        "/tmp/k.pem", "--tls-engine", "openssl"),
                List.of("client", "--transport", "tcp", "--port", "1", "--strategy", "loop", "--tls", "--trust",
                        "/tmp/c.pem", "--json"),
                List.of("load", "--host", "::1", "--port", "1", "--connections", "10", "--frames", "100", "--window",
                        "16", "--size", "100", "--rounds", "2", "--impl", "uring"),
                List.of("handshakes", "--host", "::1", "--port", "1", "--connections", "10", "--rounds", "2",
                        "--round-ms", "100", "--trust", "/tmp/c.pem", "--tls-engine", "jdk"),
                List.of("ring-write", "--impl", "agrona", "--path", "/dev/shm/x", "--capacity", "1048576", "--size", "100",
                        "--wake", "futex", "--idle-ms", "1000", "--count", "20001", "--burst", "20000"),
                List.of("ring-read", "--impl", "aeron", "--path", "/dev/shm/x", "--messages", "1000", "--rounds", "3",
                        "--verify", "--json", "--sleep", "spin"),
                List.of("ring-read", "--path", "/dev/shm/x", "--wakes", "--sleep", "futex"),
                List.of("ring-write", "--impl", "wirespeed", "--path", "/dev/shm/x", "--capacity", "1048576", "--size",
                        "100", "--wake", "futex", "--idle-ms", "1000", "--count", "11", "--burst", "20000",
                        "--warm-wakes", "2000"),
                List.of("ring-read", "--layout", "many-to-one", "--impl", "aeron", "--path", "/dev/shm/x", "--capacity",
                        "1048576", "--writers", "4", "--messages", "1000", "--rounds", "3", "--verify", "--json",
                        "--sleep", "spin", "--replace"),
                List.of("ring-write", "--layout", "many-to-one", "--impl", "agrona", "--path", "/dev/shm/x", "--writer",
                        "3", "--size", "100", "--wake", "none", "--count", "1000000"),
                List.of("ring-ping", "--impl", "wirespeed", "--path", "/dev/shm/x", "--count", "1000", "--warmup", "10",
                        "--size", "100", "--rate", "1000", "--json"),
                List.of("ring-echo", "--impl", "wirespeed", "--path", "/dev/shm/x", "--capacity", "65536", "--sleep",
                        "futex"));
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
        for (String command : COMMANDS) {
            CommandLine picocli = new CommandLine(PicocliOptions.spec(DirectLine.command(command)));
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
                        Args parsed;
                        try {
                            parsed = picocli(args);
                        } catch (CommandLine.ParameterException refused) {
                            assertNull(direct, "picocli refuses it: " + refused.getMessage());
                            return;
                        }
                        if (direct != null) {
                            assertEquals(parsed, direct.args);
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
        if (type == boolean.class || type == Boolean.class || option.arity().max() == 0) {
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
            {"client", "--transport", "tcp", "--strategy", "wirespeed", "--tls", "true"},
            {"client", "--transport", "tcp", "--strategy", "wirespeed", "--jit-settle", "--no-jit-settle"},
            {"client", "--transport", "TCP", "--strategy", "wirespeed"},
            {"client", "--transport", "tcp", "--strategy", "wirespeed", "--path", "-x"},
            {"client", "--transport", "tcp", "--strategy", "wirespeed", "@args.txt"},
            {"ping", "--transport", "tcp", "--impl", "jdk", "--count", "-1"},
            {"ping", "--transport", "tcp", "--impl", "jdk", "--count", "5", "--rate", "-1.5"},
            {"handshakes", "--port", "1"},
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
