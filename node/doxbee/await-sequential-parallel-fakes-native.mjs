// await-sequential-parallel on fakes.native -- seed 003's doxbee-sequential
// promises-native-async-await program: an async function per upload on the
// fake database lifted by the hand-written native lifter, awaiting the put and
// then the lookup, one after the other, and the rest in turn; the commit
// started and not waited for (lib/fakes.mjs); all N uploads at once.
import { main } from '../lib/contract.mjs';
import { PATH, STREAM, nativeLifter, runSeedUploads } from './lib/fakes.mjs';
import { CREATE, EXEC, FILEVERSION, LOOKUP, PUT, UPDATE, VERSION, doxbee } from './workload.mjs';

async function upload(db, up, pass, finish) {
  const tx = up.tx;
  try {
    const blob = db.blobManager.create(db.account);
    const blobId = await blob.put(STREAM);
    up.answered(PUT, blobId);
    let file = await db.self.byUuidOrPath(PATH).get();
    up.answered(LOOKUP, file);
    const version = { userAccountId: db.userAccount.id, date: new Date(), blobId,
      creatorId: db.userAccount.id, previousId: file ? file.version : null };
    version.id = db.Version.createHash(version);
    up.answered(VERSION, await db.Version.insert(version).execWithin(tx));
    if (!file) {
      const parts = PATH.split('/');
      file = { id: db.uuid.v1(), userAccountId: db.userAccount.id, name: parts[parts.length - 1], version: version.id };
      const query = await db.self.createQuery(PATH, file);
      up.answered(CREATE, query, db.created);
      up.answered(EXEC, await query.execWithin(tx));
    }
    up.answered(FILEVERSION, await db.FileVersion.insert({ fileId: file.id, versionId: version.id }).execWithin(tx));
    up.answered(UPDATE, await db.File.whereUpdate({ id: file.id }, { version: version.id }).execWithin(tx));
    up.commitNow();
  } catch (err) {
    tx.rollback();
    finish(err);
    return;
  }
  finish(null);
}

export const variant = {
  workload: doxbee, style: 'await', shape: 'sequential', mode: 'parallel', backend: 'fakes.native',
  run(pass, done) { runSeedUploads(pass, done, false, nativeLifter, upload); },
};

main(variant, import.meta.url);
