#pragma once

#include "hosts/host.h"
#include "hosts/hostconfig.h"
#include "hosts/hostprobe.h"

#include <QDialog>
#include <memory>

namespace Ui {
class HostsDialog;
}

class AppContext;
class SshPrompter;

// Add, edit, test and remove hosts. The hosts come from the engine's hosts file through the AppContext (read
// on the engine's thread, the file the engine itself reads); edits stay in the dialog until Save sends them
// back there to be written. Test Connection runs on the edited values on the engine's thread (the dialog
// makes no host of its own) and shows the host key fingerprint and the runner's answer.
class HostsDialog : public QDialog
{
    Q_OBJECT
public:
    // prompter: who answers SSH questions during a test (null: ask the user with dialogs).
    explicit HostsDialog(AppContext *context, std::shared_ptr<SshPrompter> prompter = {},
                         QWidget *parent = nullptr);
    ~HostsDialog() override;

    Ui::HostsDialog *ui() const { return m_ui.get(); }
    bool isLoaded() const { return m_loaded; } // the engine's answer with the hosts has come
    bool isSaving() const { return m_saveJob != 0; }
    // Checks the form and sends the hosts to the engine to be written; false (with the reason shown) when
    // something is wrong before anything is sent. saveFinished follows a true.
    bool save();
    void testConnection();
    QString statusText() const;
    bool testRunning() const { return m_testJob != 0; }

Q_SIGNALS:
    // The tested host's states, as the probe on the engine's thread reports them (for the status bar).
    void hostStateChanged(const QString &host, Host::State state, const QString &detail);
    void hostsSaved();
    void saveFinished(bool ok); // the engine wrote the file (ok), or says why not (in statusText())

private:
    void fill(const QList<HostConfig> &hosts, const QString &error);
    void showHost(int row);
    bool readForm(HostConfig &out, QString &error) const;
    void storeForm();
    void addHost();
    void removeHost();
    void setStatus(const QString &html);
    void showResult(const HostProbe::Result &result);
    void updateEnabled();

    std::unique_ptr<Ui::HostsDialog> m_ui;
    std::shared_ptr<SshPrompter> m_prompter;
    AppContext *m_context;
    quint64 m_loadJob = 0;
    quint64 m_saveJob = 0;
    bool m_loaded = false;
    QList<HostConfig> m_hosts; // what the list shows, built-in first
    int m_current = -1;
    bool m_loading = false;
    bool m_loadFailed = false;
    quint64 m_testJob = 0; // the running test's; 0 when none runs
};
