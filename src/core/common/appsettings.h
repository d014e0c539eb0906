#pragma once

#include <QByteArray>
#include <QSettings>
#include <QString>
#include <QStringList>
#include <QVariant>

#include <optional>

// One QSettings value: its key, its type and what it is when never set (RenderDoc's PersistantConfig table is
// the model). Reading and writing through it means a key is spelt once and a default cannot differ between
// the reader and the writer.
template<typename T> class Setting
{
public:
    Setting(const char *key, T fallback) : m_key(QLatin1String(key)), m_fallback(std::move(fallback)) {}

    QString key() const { return m_key; }
    T fallback() const { return m_fallback; }
    T value() const { return QSettings().value(m_key, QVariant::fromValue(m_fallback)).template value<T>(); }
    // For a default known only at run time (the home folder, say).
    T value(const T &fallback) const
    {
        return QSettings().value(m_key, QVariant::fromValue(fallback)).template value<T>();
    }
    // nullopt when the user never set it: "keep what the caller proposes".
    std::optional<T> stored() const
    {
        const QSettings settings;
        if (!settings.contains(m_key))
            return std::nullopt;
        return settings.value(m_key).template value<T>();
    }
    void set(const T &value) const { QSettings().setValue(m_key, QVariant::fromValue(value)); }

private:
    QString m_key;
    T m_fallback;
};

// Every setting the workbench keeps between runs, declared once (the keys are the ones earlier versions
// wrote, so a user's settings survive). QtCore values only: the core's RecentFiles reads one of them too.
namespace AppSettings {
inline const Setting<QString> theme{"ui/theme", QStringLiteral("light")}; // Theme::name()
inline const Setting<QByteArray> windowGeometry{"mainWindow/geometry", {}};
inline const Setting<QByteArray> windowState{"mainWindow/state", {}};
inline const Setting<QStringList> recentFiles{"recentFiles", {}};
inline const Setting<QStringList> openFiles{"session/openFiles", {}}; // open tabs at quit
inline const Setting<QString> currentFile{"session/currentFile", {}};
// The run target bar: where Benchmark runs.
inline const Setting<QString> runHost{"run/host", QStringLiteral("local")};
inline const Setting<QString> runTarget{"run/target", QStringLiteral("trn1")};
inline const Setting<QString> runSize{"run/size", QStringLiteral("full")};
// The Compare view's diff options.
inline const Setting<bool> compareFold{"compare/fold", true};
inline const Setting<int> compareContext{"compare/context", 3};
inline const Setting<bool> compareUnified{"compare/unified", false};
// The export dialog (its folder defaults to the home folder, known at run time).
inline const Setting<QString> exportFolder{"export/folder", {}};
inline const Setting<bool> exportReport{"export/report", true};
// The Optimize dialog's last choices (empty: the dialog's own proposal).
inline const Setting<QString> optimizeHost{"optimize/host", {}};
inline const Setting<QString> optimizeBackend{"optimize/backend", {}};
inline const Setting<QString> optimizeTarget{"optimize/target", {}};
inline const Setting<QString> optimizeSize{"optimize/size", {}};
inline const Setting<int> optimizeTimeout{"optimize/timeout", 600};
inline const Setting<QString> optimizePreset{"optimize/preset", {}};
inline const Setting<QString> optimizeConfig{"optimize/config", {}}; // SearchConfig as compact JSON
inline const Setting<bool> optimizeMemory{"optimize/memory", true};
} // namespace AppSettings
