# Finds a JDK >= 25 on this machine and exports JAVA_HOME to it. Sourced by ./mvnw and ./wirespeed.
#
# Order: $WIRESPEED_JAVA_HOME, $JAVA_HOME, the java on the PATH, then the usual JVM folders
# (Debian/Ubuntu/Fedora /usr/lib/jvm, /usr/java, /opt, SDKMAN, macOS; WIRESPEED_JDK_DIRS, a list of
# folders separated by spaces, replaces those). Versions come from each JDK's `release` file, so
# nothing is started. The newest JDK >= 25 wins.
# shellcheck shell=sh

WIRESPEED_MIN_JAVA=25

wirespeed_jdk_version() { # prints the feature version of the JDK in $1, or nothing
  [ -x "$1/bin/java" ] && [ -x "$1/bin/javac" ] && [ -f "$1/release" ] || return 0
  sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$1/release" | head -n 1
}

wirespeed_find_jdk() { # prints the home of the newest JDK >= 25, or nothing
  case $- in *f*) noglob=1 ;; *) noglob= ;; esac
  set +f # the caller may have turned globbing off (mvnw runs with set -f)
  best= best_version=0
  path_java=$(command -v java 2>/dev/null || true)
  if [ -n "$path_java" ]; then
    path_java=$(readlink -f "$path_java" 2>/dev/null || echo "$path_java")
    path_java=${path_java%/bin/java}
  fi
  dirs=${WIRESPEED_JDK_DIRS:-"/usr/lib/jvm/* /usr/java/* /opt/java/* /opt/*jdk* $HOME/.sdkman/candidates/java/* /Library/Java/JavaVirtualMachines/*/Contents/Home"}
  # $dirs is split and globbed on purpose.
  # shellcheck disable=SC2086
  for home in "${WIRESPEED_JAVA_HOME:-}" "${JAVA_HOME:-}" "$path_java" $dirs; do
    [ -n "$home" ] && [ -d "$home" ] || continue
    version=$(wirespeed_jdk_version "$home")
    [ -n "$version" ] || continue
    if [ "$version" -ge "$WIRESPEED_MIN_JAVA" ] && [ "$version" -gt "$best_version" ]; then
      best=$home best_version=$version
    fi
    # An explicit choice that qualifies is taken as it is.
    if [ -n "$best" ] && { [ "$home" = "${WIRESPEED_JAVA_HOME:-}" ] || [ "$home" = "${JAVA_HOME:-}" ]; }; then
      break
    fi
  done
  [ -z "$noglob" ] || set -f
  if [ -n "$best" ]; then echo "$best"; fi
}

wirespeed_use_jdk() { # exports JAVA_HOME, or says in one line what to install and fails
  found=$(wirespeed_find_jdk)
  if [ -z "$found" ]; then
    echo "wirespeed: no JDK $WIRESPEED_MIN_JAVA or newer found (looked at \$WIRESPEED_JAVA_HOME, \$JAVA_HOME, the PATH, /usr/lib/jvm, /usr/java, /opt, ~/.sdkman); install one, e.g. 'apt-get install openjdk-25-jdk-headless' or Temurin 25, or point WIRESPEED_JAVA_HOME at it" >&2
    return 1
  fi
  JAVA_HOME=$found
  export JAVA_HOME
}
