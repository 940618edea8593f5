package dev.wirespeed.lab.env;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.wirespeed.lab.result.ChildReport;
import dev.wirespeed.lab.result.ChildReports;
import dev.wirespeed.loop.FrameServer;
import dev.wirespeed.testing.Environment.Feature;
import dev.wirespeed.testing.Environment;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The C program of many connections: its echo under its own load, a load that catches a bad echo, and hold. */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class ManyProgramTest {
    private static Path many() throws Exception {
        List<String> notes = new ArrayList<>();
        Optional<Path> program = new CPrograms(notes::add).get(CPrograms.Program.MANY);
        Environment.assume(Feature.C_COMPILER, program.isPresent(), () -> "no C compiler: " + notes);
        return program.get();
    }

    private static Process start(List<String> command) throws Exception {
        return new ProcessBuilder(command).start();
    }

    private static String finish(Process process, int expectedExit) throws Exception {
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String err = new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(1, TimeUnit.MINUTES), out + err);
        assertEquals(expectedExit, process.exitValue(), out + err);
        return expectedExit == 0 ? out : err;
    }

    @Test
    void theLoadChecksEveryEchoOfItsEchoServerRoundByRound() throws Exception {
        Path many = many();
        Process echo = start(List.of(many.toString(), "echo", "127.0.0.1", "0"));
        try {
            BufferedReader err = new BufferedReader(new InputStreamReader(echo.getErrorStream(), StandardCharsets.UTF_8));
            Matcher listening = Pattern.compile("listening on 127\\.0\\.0\\.1:(\\d+)").matcher(String.valueOf(err.readLine()));
            assertTrue(listening.matches());
            String out = finish(start(List.of(many.toString(), "load", "127.0.0.1", listening.group(1), "50", "300",
                    "8", "100", "3")), 0);
            String[] lines = out.strip().split("\n");
            assertEquals(3, lines.length, out);
            for (int i = 0; i < 3; i++) {
                ChildReport.Load round = (ChildReport.Load) ChildReports.read(lines[i]);
                assertEquals(i + 1, round.round());
                assertEquals(50, round.connections());
                assertEquals(50 * 300, round.frames());
            }
        } finally {
            echo.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void slowReadersSendWithoutReadingAndTheOthersAreStillCounted() throws Exception {
        Path many = many();
        // An echo whose output stops a connection's reads at 64 KiB: the slow reader is held there.
        try (FrameServer echo = FrameServer.builder((connection, type, body) -> connection.writeFrame(type, body))
                .outputLimit(64 * 1024).bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).start()) {
            int port = ((InetSocketAddress) echo.localAddresses().get(0)).getPort();
            String out = finish(start(List.of(many.toString(), "load", "127.0.0.1", String.valueOf(port), "8", "2000",
                    "16", "100", "2", "1")), 0);
            String[] lines = out.strip().split("\n");
            assertEquals(2, lines.length, out);
            ChildReport.Load round = (ChildReport.Load) ChildReports.read(lines[1]);
            assertEquals(8, round.connections());
            assertEquals(1, round.slow());
            assertEquals(8 * 2000, round.frames(), "the fast connections' echoes only");
            assertTrue(echo.bytesRead() > 8L * 2 * 2000 * 108, "the slow reader sent more than the others: "
                    + echo.bytesRead());
        }
    }

    @Test
    void theLoadRefusesAnEchoThatIsNotTheFrameSent() throws Exception {
        Path many = many();
        // An echo that changes the last body byte of the 100th frame of every connection.
        try (FrameServer corrupting = FrameServer.builder((connection, type, body) -> {
            ByteBuffer copy = ByteBuffer.allocate(body.remaining()).put(body).flip();
            if (type == 99) {
                copy.put(copy.limit() - 1, (byte) (copy.get(copy.limit() - 1) + 1));
            }
            connection.writeFrame(type, copy);
        }).bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).start()) {
            int port = ((InetSocketAddress) corrupting.localAddresses().get(0)).getPort();
            String err = finish(start(List.of(many.toString(), "load", "127.0.0.1", String.valueOf(port), "3", "200",
                    "4", "100", "1")), 4);
            assertTrue(err.matches("many: connection \\d: echo 99 is not the frame sent\n"), err);
        }
    }

    @Test
    void holdKeepsItsConnectionsOpenUntilItsInputEnds() throws Exception {
        Path many = many();
        try (FrameServer echo = FrameServer.builder((connection, type, body) -> connection.writeFrame(type, body))
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).start()) {
            int port = ((InetSocketAddress) echo.localAddresses().get(0)).getPort();
            Process hold = start(List.of(many.toString(), "hold", "127.0.0.1", String.valueOf(port), "20", "100"));
            BufferedReader out = new BufferedReader(new InputStreamReader(hold.getInputStream(), StandardCharsets.UTF_8));
            assertEquals("held 20", out.readLine());
            assertEquals(20, echo.connectionCount());
            hold.getOutputStream().close();
            assertTrue(hold.waitFor(1, TimeUnit.MINUTES));
            assertEquals(0, hold.exitValue());
        }
    }

    @Test
    void aWindowOfZeroIsAUsageError() throws Exception {
        String err = finish(start(List.of(many().toString(), "load", "127.0.0.1", "1", "1", "1", "0", "100", "1")), 2);
        assertEquals("many: CONNECTIONS >= 1, FRAMES >= 1, WINDOW >= 1, 0 <= SIZE <= 65528, ROUNDS >= 1, SLOW >= 0\n", err);
    }
}
