#include "opentabs.h"

#include "common/appsettings.h"
#include "editortabs.h"
#include "kerneleditor.h"


void OpenTabs::save(const EditorTabs *tabs)
{
    QStringList paths;
    for (int i = 0; i < tabs->count(); ++i)
        if (const KernelEditor *editor = tabs->editorAt(i); editor && !editor->filePath().isEmpty())
            paths << editor->filePath();
    const KernelEditor *current = tabs->currentEditor();
    AppSettings::openFiles.set(paths);
    AppSettings::currentFile.set(current ? current->filePath() : QString());
}

QStringList OpenTabs::files()
{
    return AppSettings::openFiles.value();
}

QString OpenTabs::currentFile()
{
    return AppSettings::currentFile.value();
}
