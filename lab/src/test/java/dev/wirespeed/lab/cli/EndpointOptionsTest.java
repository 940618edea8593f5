package dev.wirespeed.lab.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.wirespeed.lab.ExitCode;
import dev.wirespeed.lab.Main;
import dev.wirespeed.lab.Transport;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The endpoint options shared by server, client, echo and ping: one set of rules and messages for all four. */
class EndpointOptionsTest {
    @TempDir
    Path dir;

    record Run(int code, String err) {
    }

    static Run run(String command) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        var commandLine = Main.commandLine();
        commandLine.setOut(new PrintWriter(out));
        commandLine.setErr(new PrintWriter(err));
        int code = commandLine.execute(command.split(" "));
        return new Run(code, err.toString());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "client --transport unix --strategy wirespeed | wirespeed client: --transport unix needs --path",
        "client --transport file --strategy channel | wirespeed client: --transport file needs --path",
        "client --transport tcp --port 70000 --strategy wirespeed | wirespeed client: --port=70000 must be 1 to 65535 to connect",
        "client --transport tcp --port 0 --strategy wirespeed | wirespeed client: --port=0 must be 1 to 65535 to connect",
        "client --transport stdout --strategy wirespeed | wirespeed client: --transport stdout is not a client transport",
        "ping --transport unix --impl native --count 1 | wirespeed ping: --transport unix needs --path",
        "ping --transport unix --path x --impl netty --count 1 | wirespeed ping: --impl netty needs --transport tcp",
        "ping --transport file --path x --impl jdk --count 1 | wirespeed ping: --transport file is not a socket: use tcp or unix",
        "ping --transport tcp --port -3 --impl jdk --count 1 | wirespeed ping: --port=-3 must be 1 to 65535 to connect",
        "server --transport unix | wirespeed server: --transport unix needs --path",
        "server --transport tcp --port 65536 | wirespeed server: --port=65536 must be 0 to 65535",
        "server --transport stdin | wirespeed server: --transport stdin is not a server transport",
        "echo --transport unix | wirespeed echo: --transport unix needs --path",
        "echo --transport tcp --port -1 | wirespeed echo: --port=-1 must be 0 to 65535",
        "echo --transport file | wirespeed echo: --transport file does not listen: use tcp or unix",
    })
    void aMissingOrOutOfRangeEndpointIsAUsageErrorNamingTheOptionAndValue(String command, String message) {
        Run run = run(command);
        assertEquals(ExitCode.USAGE, run.code(), run.err());
        assertTrue(run.err().startsWith(message), run.err());
    }

    @Test
    void aServerWhosePortIsTakenSaysWhereItCouldNotListen() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Run run = run("server --transport tcp --port " + taken.getLocalPort());
            assertEquals(ExitCode.IO_FAILURE, run.code(), run.err());
            assertTrue(run.err().startsWith("wirespeed server: cannot listen on /127.0.0.1:" + taken.getLocalPort() + ": "),
                    run.err());
        }
    }

    @Test
    void aListenerReplacesAStaleUnixSocketFile() throws Exception {
        Path stale = Files.writeString(dir.resolve("stale.sock"), "left by a killed server");
        var address = new ListenOptions(Args.of(EchoCommand.OPTIONS).with(ListenOptions.PATH, stale));
        assertEquals(java.net.UnixDomainSocketAddress.of(stale), address.address(Transport.UNIX, 1));
        assertTrue(Files.notExists(stale));
    }
}
