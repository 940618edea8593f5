package dev.wirespeed.testing;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.InputStream;
import java.lang.module.ModuleDescriptor;
import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.Field;
import java.lang.reflect.Member;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Parameter;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * A module's public API as text, one line per type and member, and the check that it matches the
 * signature file kept beside the module ({@code api/<artifact>.api}), so that every change to the API
 * is a line in review, as Okio's {@code .api} files make it.
 *
 * <p>The API is what the module exports to everyone: the public types of its unqualified exports, and
 * their public and protected constructors, methods and fields, with parameter names (the build compiles
 * with {@code -parameters}). Packages exported only to named modules, and everything else, are not API.
 * The check also refuses an API that takes or returns a raw native address (a {@code long} named so).
 *
 * <p>To accept a change: run the module's {@code ApiSignatureTest} with {@code -Dwirespeed.api.write=true},
 * which rewrites the file, and review the diff it makes.
 */
public final class ApiSignatures {
    /** A {@code long} named as an address: a parameter, a field or a method's result. */
    private static final Pattern RAW_ADDRESS = Pattern.compile("\\blong \\w*(address|Address)\\w*\\b");

    /** The system property that rewrites the signature file instead of checking it. */
    public static final String WRITE_PROPERTY = "wirespeed.api.write";

    private ApiSignatures() {
    }

    /**
     * Checks the API of the module compiled into {@code classes} against {@code file}, or rewrites
     * {@code file} where {@value #WRITE_PROPERTY} is true.
     *
     * @param classes the module's compiled classes, {@code module-info.class} at their root
     * @param file the signature file
     * @throws IOException if either cannot be read, or the file written
     */
    public static void check(Path classes, Path file) throws IOException {
        check(classes, file, ApiSignatures::list);
    }

    /** Lists the API of compiled classes. */
    @FunctionalInterface
    public interface Lister {
        /**
         * {@return the API lines}
         *
         * @param classes the compiled classes
         * @throws IOException if they cannot be read
         */
        List<String> list(Path classes) throws IOException;
    }

    /**
     * As {@link #check(Path, Path)}, the API listed by {@code lister}.
     *
     * @param classes the module's compiled classes
     * @param file the signature file
     * @param lister lists the API of {@code classes}
     * @throws IOException if either cannot be read, or the file written
     */
    public static void check(Path classes, Path file, Lister lister) throws IOException {
        List<String> actual = lister.list(classes);
        List<String> addresses = actual.stream().filter(line -> RAW_ADDRESS.matcher(line).find()).toList();
        if (!addresses.isEmpty()) {
            fail("the public API takes or returns raw native addresses, which only code granted native access may"
                    + " pass to the kernel; keep them in a package the module does not export:\n"
                    + String.join("\n", addresses));
        }
        if (Boolean.getBoolean(WRITE_PROPERTY)) {
            Files.createDirectories(file.toAbsolutePath().getParent());
            Files.write(file, actual, StandardCharsets.UTF_8);
            return;
        }
        if (!Files.exists(file)) {
            fail("no API signature file " + file.toAbsolutePath() + ": run this test with -D" + WRITE_PROPERTY
                    + "=true to write it, then review it");
        }
        List<String> expected = Files.readAllLines(file, StandardCharsets.UTF_8);
        if (!expected.equals(actual)) {
            Set<String> removed = new LinkedHashSet<>(expected);
            actual.forEach(removed::remove);
            Set<String> added = new LinkedHashSet<>(actual);
            expected.forEach(added::remove);
            StringBuilder diff = new StringBuilder();
            removed.forEach(line -> diff.append("\n- ").append(line));
            added.forEach(line -> diff.append("\n+ ").append(line));
            fail("the public API differs from " + file + " (- in the file, + in the code):" + diff
                    + "\nIf the change is meant, run this test with -D" + WRITE_PROPERTY
                    + "=true to rewrite the file, and review its diff.");
        }
    }

    /**
     * {@return the API of the module compiled into {@code classes}, sorted: each type's line, then its
     * members' lines indented by two spaces}
     *
     * @param classes the module's compiled classes
     * @throws IOException if they cannot be read
     */
    public static List<String> list(Path classes) throws IOException {
        return list(classes, ApiSignatures.class.getClassLoader());
    }

    /**
     * As {@link #list(Path)}, the classes loaded by {@code loader}.
     *
     * @param classes the module's compiled classes
     * @param loader a loader that finds them
     * @return the API
     * @throws IOException if they cannot be read
     */
    public static List<String> list(Path classes, ClassLoader loader) throws IOException {
        ModuleDescriptor module;
        try (InputStream in = Files.newInputStream(classes.resolve("module-info.class"))) {
            module = ModuleDescriptor.read(in);
        }
        TreeMap<String, List<String>> types = new TreeMap<>();
        for (ModuleDescriptor.Exports exports : module.exports()) {
            if (exports.isQualified()) {
                continue;
            }
            Path dir = classes.resolve(exports.source().replace('.', '/'));
            try (Stream<Path> files = Files.list(dir)) {
                for (Path f : files.filter(p -> p.toString().endsWith(".class")).sorted().toList()) {
                    String name = exports.source() + "." + f.getFileName().toString().replace(".class", "");
                    if (name.endsWith("package-info")) {
                        continue;
                    }
                    Class<?> type = load(name, loader);
                    if (isApi(type)) {
                        types.put(type.getName(), describe(type));
                    }
                }
            }
        }
        List<String> lines = new ArrayList<>();
        types.values().forEach(lines::addAll);
        return lines;
    }

    private static Class<?> load(String name, ClassLoader loader) {
        try {
            return Class.forName(name, false, loader);
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException("compiled class " + name + " not on the test's class path", e);
        }
    }

    /** A public type, and for a nested one, every enclosing type public too; nothing anonymous, local or synthetic. */
    private static boolean isApi(Class<?> type) {
        if (type.isAnonymousClass() || type.isLocalClass() || type.isSynthetic()) {
            return false;
        }
        for (Class<?> t = type; t != null; t = t.getDeclaringClass()) {
            if (!Modifier.isPublic(t.getModifiers())) {
                return false;
            }
        }
        return true;
    }

    /** Members by name, then by their line: a type's fields, constructors and overloads read together. */
    private static List<String> describe(Class<?> type) {
        TreeMap<String, String> members = new TreeMap<>();
        for (Field f : type.getDeclaredFields()) {
            if (visible(f) && !f.isSynthetic()) {
                String line = modifiers(f.getModifiers()) + name(f.getGenericType()) + " " + f.getName();
                members.put(f.getName() + " " + line, line);
            }
        }
        for (Constructor<?> c : type.getDeclaredConstructors()) {
            if (visible(c) && !c.isSynthetic()) {
                String line = modifiers(c.getModifiers()) + typeParameters(c.getTypeParameters()) + type.getSimpleName()
                        + parameters(c) + exceptions(c);
                members.put("<init> " + line, line);
            }
        }
        for (Method m : type.getDeclaredMethods()) {
            if (visible(m) && !m.isSynthetic() && !m.isBridge()) {
                int modifiers = m.getModifiers() & ~(type.isInterface() ? Modifier.ABSTRACT : 0);
                String line = modifiers(modifiers) + (m.isDefault() ? "default " : "") + typeParameters(m.getTypeParameters())
                        + name(m.getGenericReturnType()) + " " + m.getName() + parameters(m) + exceptions(m);
                members.put(m.getName() + " " + line, line);
            }
        }
        List<String> lines = new ArrayList<>();
        lines.add(header(type));
        members.values().forEach(member -> lines.add("  " + member));
        return lines;
    }

    private static boolean visible(Member member) {
        return (member.getModifiers() & (Modifier.PUBLIC | Modifier.PROTECTED)) != 0;
    }

    private static String header(Class<?> type) {
        int modifiers = type.getModifiers() & ~(Modifier.INTERFACE | Modifier.STATIC);
        String kind;
        if (type.isAnnotation()) {
            kind = "@interface";
            modifiers &= ~Modifier.ABSTRACT;
        } else if (type.isInterface()) {
            kind = "interface";
            modifiers &= ~Modifier.ABSTRACT;
        } else if (type.isEnum()) {
            kind = "enum";
            modifiers &= ~(Modifier.FINAL | Modifier.ABSTRACT);
        } else if (type.isRecord()) {
            kind = "record";
            modifiers &= ~Modifier.FINAL;
        } else {
            kind = "class";
        }
        StringBuilder line = new StringBuilder(modifiers(modifiers));
        if (type.isSealed()) {
            line.append("sealed ");
        }
        line.append(kind).append(' ').append(type.getName().replace('$', '.'))
                .append(typeParameters(type.getTypeParameters()));
        if (type.isRecord()) {
            line.append(Arrays.stream(type.getRecordComponents())
                    .map(ApiSignatures::component).collect(Collectors.joining(", ", "(", ")")));
        }
        Type superclass = type.getGenericSuperclass();
        if (superclass != null && superclass != Object.class && !type.isEnum() && !type.isRecord()) {
            line.append(" extends ").append(name(superclass));
        }
        Type[] interfaces = type.getGenericInterfaces();
        if (interfaces.length > 0 && !type.isAnnotation()) {
            line.append(type.isInterface() ? " extends " : " implements ").append(Arrays.stream(interfaces)
                    .map(ApiSignatures::name).collect(Collectors.joining(", ")));
        }
        return line.toString();
    }

    private static String component(RecordComponent component) {
        return name(component.getGenericType()) + " " + component.getName();
    }

    private static String modifiers(int modifiers) {
        String text = Modifier.toString(modifiers & ~(Modifier.SYNCHRONIZED | Modifier.NATIVE | Modifier.TRANSIENT
                | Modifier.VOLATILE | Modifier.STRICT));
        return text.isEmpty() ? "" : text + " ";
    }

    private static String typeParameters(TypeVariable<?>[] variables) {
        if (variables.length == 0) {
            return "";
        }
        return Arrays.stream(variables).map(v -> {
            Type[] bounds = v.getBounds();
            boolean plain = bounds.length == 1 && bounds[0] == Object.class;
            return plain ? v.getName() : v.getName() + " extends " + Arrays.stream(bounds).map(ApiSignatures::name)
                    .collect(Collectors.joining(" & "));
        }).collect(Collectors.joining(", ", "<", "> "));
    }

    private static String parameters(Executable executable) {
        Parameter[] parameters = executable.getParameters();
        Type[] types = executable.getGenericParameterTypes();
        // An inner class's constructor, or an enum's, may report fewer generic types than parameters.
        int skip = parameters.length - types.length;
        List<String> each = new ArrayList<>();
        for (int i = skip; i < parameters.length; i++) {
            Parameter p = parameters[i];
            String type = name(types[i - skip]);
            if (p.isVarArgs()) {
                type = type.substring(0, type.length() - 2) + "...";
            }
            each.add(type + (p.isNamePresent() ? " " + p.getName() : ""));
        }
        return each.stream().collect(Collectors.joining(", ", "(", ")"));
    }

    private static String exceptions(Executable executable) {
        Type[] thrown = executable.getGenericExceptionTypes();
        return thrown.length == 0 ? "" : Arrays.stream(thrown).map(ApiSignatures::name)
                .collect(Collectors.joining(", ", " throws ", ""));
    }

    private static String name(Type type) {
        return type.getTypeName().replace('$', '.');
    }
}
