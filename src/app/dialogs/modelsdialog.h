#pragma once

#include "llm/llmconfig.h"

#include <QDialog>
#include <QSet>
#include <memory>

namespace Ui {
class ModelsDialog;
}
class AppContext;
class QComboBox;
struct ChatReply;

// Tools > Models…: the LLM endpoints (add from a preset, edit, remove, test with a real tiny call) and the
// models each serves, which endpoint's model serves each agent role (chosen from those that exist), and the
// price table. Edits the llm.json the window's engine runs on (the same file format as `accelopt models`),
// read and written on the engine's thread through the AppContext; a key typed here goes to the system
// keychain (ApiKeyStore on the engine's thread), or where there is none stays in memory for this session,
// never into that file. The test call runs there too: the dialog makes no network client and no keychain call
// of its own.
class ModelsDialog : public QDialog
{
    Q_OBJECT
public:
    explicit ModelsDialog(AppContext *context, QWidget *parent = nullptr);
    ~ModelsDialog() override;

    const LlmConfig &config() const { return m_config; }
    bool isLoaded() const { return m_loaded; } // the engine's answer with llm.json has come
    bool isSaving() const { return m_saveJob != 0; }
    // Collects the form into the config and sends it to the engine to be written; false (with the reason
    // shown) when something is wrong before anything is sent. saveFinished follows a true.
    bool save();
    void addEndpoint(const QString &presetId);
    // The key typed for the current endpoint: to the keychain, else for this session (keyKept follows).
    void keepTypedKey();
    void testCurrentEndpoint();
    QString testResult() const;
    // What the dialog says about the current endpoint's key travelling over plain http://, and above the tabs
    // (tightened file modes, endpoints allowed to send their key in clear text).
    QString plainHttpWarning() const;
    QString problem() const;

Q_SIGNALS:
    void testFinished(bool ok);
    void keyKept(bool ok, const QString &message);
    void saveFinished(bool ok); // written (ok), or why not in problem()

private:
    void fill(const std::optional<LlmConfig> &config, const QString &error, const QStringList &notes);
    void saved(const QString &error);
    void showEndpoint(int row);
    void storeEndpoint(int row); // form -> m_config.endpoints[row]
    void refreshList();
    void loadRolesAndPrices();
    bool collectRolesAndPrices(QString *error);
    void addRoleRow(int row, AgentRole role, const ModelRoster::Member &member);
    void fillEndpointChoices(QComboBox *endpoints, const QString &chosen) const;
    void fillModelChoices(QComboBox *models, const QString &endpoint, const QString &chosen) const;
    void refreshRoleChoices(); // after the endpoints changed: the same choices, from the new lists
    void setProblem(const QString &text);
    void updatePlainHttpWarning();
    static QString plainHttpWarningFor(const Endpoint &endpoint);

    std::unique_ptr<Ui::ModelsDialog> m_ui;
    AppContext *m_context;
    quint64 m_loadJob = 0;
    quint64 m_saveJob = 0;
    bool m_loaded = false;
    bool m_acceptWhenSaved = false; // OK was pressed: close once the file is written
    LlmConfig m_config;
    int m_current = -1;
    bool m_loading = false;
    QSet<quint64> m_keyJobs;       // typed keys on their way to the keychain
    bool m_acceptWhenKept = false; // OK was pressed meanwhile: close once they are kept
    quint64 m_testJob = 0;         // the newest test's: an older one's answer is stale
    void showTest(bool keyFound, const QString &keyMessage, const ChatReply &reply);
};
