package dev.wirespeed.lab.experiments.idle;

import dev.wirespeed.lab.Idle;
import dev.wirespeed.lab.client.Strategies;
import dev.wirespeed.lab.pingpong.EchoArgs;
import dev.wirespeed.lab.pingpong.EchoImpl;
import dev.wirespeed.lab.pingpong.Impl;
import java.util.ArrayList;
import java.util.List;

/**
 * One row of the idle experiment: the library over the JDK's {@code SocketChannel}, blocking in
 * {@code read}, or non-blocking and idling between empty calls with one of the {@link Idle} strategies.
 *
 * @param idle the strategy, or null for blocking
 */
public record IdleRow(Idle idle) {
    /** {@return every row: blocking first, then each strategy} */
    public static List<IdleRow> all() {
        List<IdleRow> rows = new ArrayList<>(List.of(new IdleRow(null)));
        for (Idle idle : Idle.values()) {
            rows.add(new IdleRow(idle));
        }
        return rows;
    }

    /** {@return the row's name in tables and results} */
    public String name() {
        return idle == null ? "blocking" : idle.cliName() + (idle == Idle.SPIN ? " (default)" : "");
    }

    /** {@return the client's options: strategy and idle strategy} */
    List<String> clientArgs() {
        return idle == null ? List.of("--strategy", Strategies.WIRESPEED.cliName())
                : List.of("--strategy", Strategies.WIRESPEED_SPIN.cliName(), "--idle", idle.cliName());
    }

    /** {@return the echo's options} */
    List<String> echoArgs() {
        EchoArgs echo = EchoArgs.of(EchoImpl.JDK);
        return (idle == null ? echo : echo.withSpin(idle)).args();
    }

    /** {@return the ping's options} */
    List<String> pingArgs() {
        return idle == null ? List.of("--impl", Impl.JDK.cliName())
                : List.of("--impl", Impl.JDK_SPIN.cliName(), "--idle", idle.cliName());
    }
}
