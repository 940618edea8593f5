package dev.wirespeed.lab.cli;

import dev.wirespeed.lab.CliName;
import dev.wirespeed.lab.Idle;
import dev.wirespeed.lab.LoopImpl;
import dev.wirespeed.lab.Ring;
import dev.wirespeed.lab.Threads;
import dev.wirespeed.lab.client.Strategies;
import dev.wirespeed.lab.pingpong.EchoImpl;
import dev.wirespeed.lab.pingpong.Impl;
import dev.wirespeed.lab.server.ServerImpl;
import dev.wirespeed.lab.shm.Layout;
import dev.wirespeed.lab.shm.ShmImpl;
import dev.wirespeed.lab.shm.Sleep;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * Picocli's converters of the values the command line names, each by its {@link CliName#cliName()}:
 * an unknown name is a usage error (exit code 2) that names it and the known ones.
 */
final class Names {
    private Names() {
    }

    /** Converts a name to the one of {@code values} that bears it. */
    private abstract static class Of<T extends CliName> implements ITypeConverter<T> {
        private final T[] values;
        private final String what;

        Of(T[] values, String what) {
            this.values = values;
            this.what = what;
        }

        @Override
        public T convert(String name) {
            try {
                return CliName.byName(values, what, name);
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException(e.getMessage());
            }
        }
    }

    /** {@code load --impl}. */
    static final class LoopImplName extends Of<LoopImpl> {
        LoopImplName() {
            super(LoopImpl.values(), "--impl");
        }
    }

    /** {@code server --impl}. */
    static final class ServerImplName extends Of<ServerImpl> {
        ServerImplName() {
            super(ServerImpl.values(), "--impl");
        }
    }

    /** {@code echo --impl}. */
    static final class EchoImplName extends Of<EchoImpl> {
        EchoImplName() {
            super(EchoImpl.values(), "--impl");
        }
    }

    /** {@code ping --impl}. */
    static final class PingImplName extends Of<Impl> {
        PingImplName() {
            super(Impl.values(), "--impl");
        }
    }

    /** {@code ring-* --impl}. */
    static final class ShmImplName extends Of<ShmImpl> {
        ShmImplName() {
            super(ShmImpl.values(), "--impl");
        }
    }

    /** {@code ring-write --layout} and {@code ring-read --layout}. */
    static final class LayoutName extends Of<Layout> {
        LayoutName() {
            super(Layout.values(), "--layout");
        }
    }

    /** {@code ring-* --sleep}. */
    static final class SleepName extends Of<Sleep> {
        SleepName() {
            super(Sleep.values(), "--sleep");
        }
    }

    /** {@code --ring}. */
    static final class RingName extends Of<Ring> {
        RingName() {
            super(Ring.values(), "--ring");
        }
    }

    /** {@code --idle}. */
    static final class IdleName extends Of<Idle> {
        IdleName() {
            super(Idle.values(), "--idle");
        }
    }

    /** {@code --threads}. */
    static final class ThreadsName extends Of<Threads> {
        ThreadsName() {
            super(Threads.values(), "--threads");
        }
    }

    /** {@code client --strategy}. */
    static final class StrategyName extends Of<Strategies> {
        StrategyName() {
            super(Strategies.values(), "strategy");
        }
    }
}
