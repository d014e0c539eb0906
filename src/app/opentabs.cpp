#include "opentabs.h"

#include "editortabs.h"
#include "kerneleditor.h"

#include <QSettings>

namespace {
const QString filesKey = QStringLiteral("session/openFiles");
const QString currentKey = QStringLiteral("session/currentFile");
} // namespace

void OpenTabs::save(const EditorTabs *tabs)
{
    QStringList paths;
    for (int i = 0; i < tabs->count(); ++i)
        if (const KernelEditor *editor = tabs->editorAt(i); editor && !editor->filePath().isEmpty())
            paths << editor->filePath();
    const KernelEditor *current = tabs->currentEditor();
    QSettings settings;
    settings.setValue(filesKey, paths);
    settings.setValue(currentKey, current ? current->filePath() : QString());
}

QStringList OpenTabs::files()
{
    return QSettings().value(filesKey).toStringList();
}

QString OpenTabs::currentFile()
{
    return QSettings().value(currentKey).toString();
}
