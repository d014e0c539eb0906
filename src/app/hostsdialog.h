#pragma once

#include "hosts/host.h"
#include "hosts/hostconfig.h"
#include "hosts/hostprobe.h"
#include "hosts/hostregistry.h"

#include <QDialog>
#include <memory>

namespace Ui {
class HostsDialog;
}

class SshPrompter;

// Add, edit, test and remove hosts. Edits stay in the dialog until Save writes the hosts file; Test
// Connection runs on the edited values, in the background, and shows the host key fingerprint and the
// runner's answer.
class HostsDialog : public QDialog
{
    Q_OBJECT
public:
    // prompter: who answers SSH questions during a test (null: ask the user with dialogs).
    explicit HostsDialog(std::shared_ptr<SshPrompter> prompter = {}, QWidget *parent = nullptr,
                         const QString &hostsFile = HostRegistry::defaultPath());
    ~HostsDialog() override;

    Ui::HostsDialog *ui() const { return m_ui.get(); }
    bool save();
    void testConnection();
    QString statusText() const;
    bool testRunning() const { return m_testing; }

Q_SIGNALS:
    void hostTracked(Host *host); // a host object whose state the status bar may follow
    void hostsSaved();

private:
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
    HostRegistry m_registry;
    QList<HostConfig> m_hosts; // what the list shows, built-in first
    int m_current = -1;
    bool m_loading = false;
    bool m_loadFailed = false;
    bool m_testing = false;
    HostProbe *m_probe;
};
