#include "mcpsecrets.h"

#include "llm/llmconfig.h"

#include <QProcessEnvironment>
#include <QRegularExpression>

#include <algorithm>

QStringList McpSecrets::collect()
{
    const QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    static const QRegularExpression secretName(
        QStringLiteral("KEY|TOKEN|SECRET|PASSW|PASSPHRASE|CREDENTIAL|AUTH"), QRegularExpression::CaseInsensitiveOption);
    QStringList names;
    for (const QString &name : env.keys())
        if (secretName.match(name).hasMatch())
            names << name;
    if (const auto config = LlmConfig::load(LlmConfig::defaultPath(), nullptr))
        for (const Endpoint &e : config->endpoints)
            if (!e.keyEnvVar.isEmpty())
                names << e.keyEnvVar;
    QStringList values;
    for (const QString &name : std::as_const(names)) {
        const QString value = env.value(name);
        if (value.size() >= minimumLength && !values.contains(value))
            values << value;
    }
    // Longest first, so a secret that contains another is replaced whole.
    std::sort(values.begin(), values.end(), [](const QString &a, const QString &b) { return a.size() > b.size(); });
    return values;
}
