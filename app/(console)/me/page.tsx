import { ProfileView } from "@/components/profile/profile-view";

export default function MyProfilePage() {
  return <ProfileView />;
}
