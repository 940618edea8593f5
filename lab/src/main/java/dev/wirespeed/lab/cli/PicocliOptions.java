package dev.wirespeed.lab.cli;

import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.IGetter;
import picocli.CommandLine.Model.ISetter;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.TypeConversionException;

/**
 * Picocli's model of a command whose options are a table ({@link Options}): the command's annotation
 * gives its name, description and help options, the table every other option, each read by its
 * {@link Opt}'s own function, so that picocli and {@link DirectLine} read a value alike.
 *
 * <p>Thread safety: stateless.
 */
public final class PicocliOptions {
    private PicocliOptions() {
    }

    /**
     * {@return what picocli takes as a subcommand}: the model of a command whose options are a table, or
     * any other command as it is (picocli reads its annotations)
     *
     * @param command a command object
     */
    public static Object spec(Object command) {
        if (!(command instanceof DirectCommand direct)) {
            return command;
        }
        CommandSpec spec = CommandSpec.forAnnotatedObject(direct);
        for (Opt<?> opt : direct.args.options().all()) {
            spec.addOption(option(direct, opt));
        }
        direct.spec = spec;
        return spec;
    }

    private static <T> OptionSpec option(DirectCommand command, Opt<T> opt) {
        OptionSpec.Builder option = OptionSpec.builder(opt.name()).type(opt.type()).description(opt.help())
                .required(opt.isRequired())
                .getter(new IGetter() {
                    @Override
                    @SuppressWarnings("unchecked")
                    public <V> V get() {
                        return (V) command.args.get(opt);
                    }
                })
                .setter(new ISetter() {
                    @Override
                    @SuppressWarnings("unchecked")
                    public <V> V set(V value) {
                        T old = command.args.get(opt);
                        command.args = command.args.with(opt, opt.cast(value));
                        return (V) old;
                    }
                });
        option.paramLabel(opt.label() != null ? opt.label() : "<" + opt.name().substring(2) + ">");
        switch (opt.kind()) {
            case VALUE -> {
                ITypeConverter<T> converter = value -> {
                    try {
                        return opt.parse(value);
                    } catch (IllegalArgumentException e) {
                        throw new TypeConversionException(e.getMessage());
                    }
                };
                option.converters(converter);
                if (opt.defaultValue() != null) {
                    option.defaultValue(opt.format(opt.defaultValue()));
                }
            }
            case FLAG -> option.type(boolean.class);
            case NEGATABLE -> option.type(boolean.class).negatable(true).defaultValue("true").fallbackValue("true");
        }
        return option.build();
    }
}
