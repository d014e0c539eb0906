#include "hosts/runnerenvironment.h"

#include <QDir>
#include <QStringList>

QProcessEnvironment RunnerEnvironment::forLocalRunner(const QString &nkibenchDir)
{
    QProcessEnvironment env = fromSystem(QProcessEnvironment::systemEnvironment());
    env.insert(QStringLiteral("PYTHONPATH"), QDir(nkibenchDir).filePath(QStringLiteral("runner")) + u':' + nkibenchDir);
    env.insert(QStringLiteral("PYTHONDONTWRITEBYTECODE"), QStringLiteral("1"));
    env.insert(QStringLiteral("PYTHONUNBUFFERED"), QStringLiteral("1"));
    return env;
}

bool RunnerEnvironment::passes(const QString &name)
{
    static const QStringList exact{
        QStringLiteral("PATH"), QStringLiteral("HOME"), QStringLiteral("USER"), QStringLiteral("LOGNAME"),
        QStringLiteral("SHELL"), QStringLiteral("LANG"), QStringLiteral("LANGUAGE"), QStringLiteral("TZ"),
        QStringLiteral("TMPDIR"), QStringLiteral("TMP"), QStringLiteral("TEMP"),
        // An interpreter in a virtual environment or conda, and the SDK's shared libraries.
        QStringLiteral("PYTHONHOME"), QStringLiteral("PYTHONIOENCODING"), QStringLiteral("VIRTUAL_ENV"),
        QStringLiteral("CONDA_PREFIX"), QStringLiteral("LD_LIBRARY_PATH"),
        QStringLiteral("OMP_NUM_THREADS"), QStringLiteral("OPENBLAS_NUM_THREADS"),
        QStringLiteral("MKL_NUM_THREADS"),
        // The runner's own settings (nkibench/runner/README.md).
        QStringLiteral("ACCELOPT_ROOFLINE_COMPAT"), QStringLiteral("ACCELOPT_RUNNER_MEMORY_LIMIT_MB"),
        QStringLiteral("ACCELOPT_RUNNER_SLOTS"), QStringLiteral("ACCELOPT_RUNNER_NO_ZYGOTE"),
        QStringLiteral("ACCELOPT_RUNNER_NO_SANDBOX"),
        // SLURM's client commands (a SLURM host's salloc and srun) find their cluster by it
        QStringLiteral("SLURM_CONF")};
    static const QStringList prefixes{QStringLiteral("LC_"), QStringLiteral("NEURON_"),
                                      QStringLiteral("NKISIM_")};
    // Even under an allowed prefix, a name that says it holds a secret stays behind.
    static const QStringList secretWords{QStringLiteral("KEY"), QStringLiteral("TOKEN"),
                                         QStringLiteral("SECRET"), QStringLiteral("PASSWORD"),
                                         QStringLiteral("CREDENTIAL")};
    for (const QString &word : secretWords)
        if (name.contains(word, Qt::CaseInsensitive))
            return false;
    if (exact.contains(name))
        return true;
    for (const QString &prefix : prefixes)
        if (name.startsWith(prefix))
            return true;
    return false;
}

QProcessEnvironment RunnerEnvironment::fromSystem(const QProcessEnvironment &system)
{
    QProcessEnvironment env;
    const QStringList names = system.keys();
    for (const QString &name : names)
        if (passes(name))
            env.insert(name, system.value(name));
    return env;
}
